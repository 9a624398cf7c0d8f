#include "harness/history/db_schema.h"

#include <sqlite3.h>

#include "harness/history/sqlite_db.h"

namespace bert::harness::history {

const std::vector<Migration>& schema_migrations() {
  static const std::vector<Migration> m = {
      {"sets, runs and reference verdicts", R"sql(
CREATE TABLE sets (
  id INTEGER PRIMARY KEY,
  recorded_at TEXT NOT NULL,
  origin TEXT NOT NULL,
  system_name TEXT NOT NULL,
  config_name TEXT NOT NULL DEFAULT '',
  system_file TEXT NOT NULL DEFAULT '',
  system_file_sha256 TEXT NOT NULL DEFAULT '',
  harness_commit TEXT NOT NULL DEFAULT '',
  harness_dirty INTEGER NOT NULL DEFAULT 0,
  nodes INTEGER NOT NULL DEFAULT 0,
  ranks_per_node INTEGER NOT NULL DEFAULT 0,
  accelerator TEXT NOT NULL DEFAULT '',
  precision TEXT NOT NULL DEFAULT '',
  backend TEXT NOT NULL DEFAULT '',
  container_image TEXT NOT NULL DEFAULT '',
  ruleset TEXT NOT NULL DEFAULT '',
  division TEXT NOT NULL DEFAULT '',
  datestamp TEXT NOT NULL DEFAULT '',
  output_dir TEXT NOT NULL,
  results_dir TEXT NOT NULL DEFAULT '',
  nexp INTEGER NOT NULL DEFAULT 0,
  interrupted INTEGER NOT NULL DEFAULT 0,
  score_min REAL,
  mean_min REAL,
  energy_j REAL,
  rcp_checked INTEGER NOT NULL DEFAULT 0,
  rcp_passed INTEGER NOT NULL DEFAULT 0,
  rcp_message TEXT NOT NULL DEFAULT '',
  UNIQUE (output_dir, datestamp)
);
CREATE INDEX sets_by_system ON sets (system_name, recorded_at);
CREATE TABLE runs (
  set_id INTEGER NOT NULL REFERENCES sets (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  seed INTEGER,
  status TEXT NOT NULL DEFAULT '',
  ttt_min REAL,
  samples_to_converge REAL,
  samples_per_s REAL,
  energy_j REAL,
  compliant INTEGER,
  compliance_failure TEXT NOT NULL DEFAULT '',
  olympic TEXT NOT NULL DEFAULT '',
  result_file TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (set_id, idx)
);
CREATE TABLE reference_verdicts (
  set_id INTEGER NOT NULL REFERENCES sets (id) ON DELETE CASCADE,
  figure TEXT NOT NULL,
  target REAL NOT NULL,
  tolerance REAL NOT NULL,
  value REAL,
  basis TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL,
  PRIMARY KEY (set_id, figure)
);
)sql"},
  };
  return m;
}

int schema_version(SqliteDb& db) {
  Stmt s = db.prepare("PRAGMA user_version");
  s.step();
  return int(s.integer(0));
}

void migrate(SqliteDb& db, const std::vector<Migration>& migrations) {
  const int known = int(migrations.size());
  auto check_newer = [&](int v) {
    if (v > known)
      throw DbError(SQLITE_ERROR, "written by a newer harness (schema version " + std::to_string(v) +
                                      "; this harness knows up to " + std::to_string(known) + "): use that harness, or another --db");
  };
  int v = schema_version(db);  // a read; also where a file that is no database says so
  check_newer(v);
  if (v == known) return;
  Transaction t(db);  // under the write lock: another process may have migrated meanwhile
  v = schema_version(db);
  check_newer(v);
  for (; v < known; ++v) {
    try {
      db.exec(migrations[size_t(v)].sql);
    } catch (const DbError& e) {
      throw DbError(e.code, "migrating to schema version " + std::to_string(v + 1) + " (" + migrations[size_t(v)].what +
                                "): " + e.what());
    }
  }
  db.exec("PRAGMA user_version = " + std::to_string(known));
  t.commit();
}

}  // namespace bert::harness::history
