// The results database's schema as a list of migrations: migration i (0-based) takes a database from
// schema version i to i + 1 (SQLite's PRAGMA user_version). A new column or table is a new entry at
// the end; an entry never changes once released.
#pragma once
#include <string>
#include <vector>

namespace bert::harness::history {

struct Migration {
  std::string what;  // for messages
  std::string sql;
};

const std::vector<Migration>& schema_migrations();

class SqliteDb;

// Brings `db` to migrations.size() inside one write transaction (a second process that migrates at the same
// time waits, then finds nothing to do). Throws DbError naming the versions when the database was written by
// a newer harness (a higher version than it knows).
void migrate(SqliteDb& db, const std::vector<Migration>& migrations);
int schema_version(SqliteDb& db);

}  // namespace bert::harness::history
