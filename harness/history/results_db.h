// The results database: every set `harness run` ends and every folder `harness score --record` reads,
// in one SQLite file (schema: db_schema.cpp). WAL and a busy timeout let sets that end at the same time
// each write their record; a set that is recorded again (--resume) replaces its own record (the same
// output folder and datestamp), keeping its id.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/history/set_record.h"

namespace bert::harness::history {

class SqliteDb;

// Where the database lives: --db, else $BERT_RESULTS_DB, else $XDG_DATA_HOME/bert-harness/results.db,
// else $HOME/.local/share/bert-harness/results.db (the XDG base directory default).
std::string results_db_path(const std::string& flag, const std::map<std::string, std::string>& env);

struct SetFilter {
  std::string system;  // "" = every system
  int limit = 0;       // 0 = no limit
};

class ResultsDb {
 public:
  // Opens (creating the file and its folder when `create`) and brings the schema up to date.
  // Throws DbError with one line: cannot open, not a database, written by a newer harness, ...
  static ResultsDb open(const std::string& path, bool create);
  ~ResultsDb();
  ResultsDb(ResultsDb&&) noexcept;

  int64_t record(const SetRecord& s);                  // insert or replace; returns the set's id
  std::vector<SetRecord> sets(const SetFilter& f);    // newest first, with their runs and verdicts
  std::optional<SetRecord> set(int64_t id);
  const std::string& path() const { return path_; }

 private:
  ResultsDb(std::string path, std::unique_ptr<SqliteDb> db);
  void load_children(SetRecord& s);
  std::string path_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace bert::harness::history
