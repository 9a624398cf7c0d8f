#include <doctest/doctest.h>

#include <sqlite3.h>

#include <fstream>

#include "../temp_dir.h"
#include "harness/history/db_schema.h"
#include "harness/history/results_db.h"
#include "harness/history/sqlite_db.h"

using namespace bert::harness::history;

namespace {

SetRecord sample_set(const std::string& out, const std::string& datestamp, const std::string& system = "local") {
  SetRecord s;
  s.recorded_at = "2026-01-02T03:04:05Z";
  s.origin = "run";
  s.system_name = system;
  s.output_dir = out;
  s.datestamp = datestamp;
  s.nodes = 2;
  s.ranks_per_node = 8;
  s.accelerator = "NVIDIA H100 80GB HBM3";
  s.score_min = 12.5;
  s.rcp_checked = true;
  s.rcp_passed = true;
  for (int i = 1; i <= 3; ++i) {
    RunRecord r;
    r.index = i;
    r.seed = 100 + i;
    r.status = "converged";
    r.ttt_min = 12 + i * 0.1;
    r.samples_per_s = 1000.0 * i;
    r.compliant = true;
    r.result_file = "result_" + std::to_string(i - 1) + ".txt";
    s.runs.push_back(r);
  }
  s.references.push_back({"time_to_train_min", 13, 0.05, 12.5, "score (olympic mean)", "met"});
  return s;
}

}  // namespace

TEST_CASE("results database: a set and its runs round-trip; newest first; --system filters") {
  TempDir t;
  const std::string path = t.file("sub/dir/results.db");  // its folder is made
  ResultsDb db = ResultsDb::open(path, true);
  SetRecord a = sample_set("/out/a", "1"), b = sample_set("/out/b", "2", "other");
  b.recorded_at = "2026-02-01T00:00:00Z";
  b.energy_j.reset();
  b.runs[1].energy_j = 5.5e6;
  const int64_t ida = db.record(a), idb = db.record(b);
  CHECK(ida != idb);
  const auto all = db.sets({});
  REQUIRE(all.size() == 2);
  CHECK(all[0].id == idb);  // newest first
  CHECK(all[1].system_name == "local");
  CHECK(all[1].runs.size() == 3);
  CHECK(*all[1].runs[2].ttt_min == doctest::Approx(12.3));
  CHECK(*all[1].runs[0].seed == 101);
  CHECK_FALSE(all[1].runs[0].energy_j);  // energy is nullable
  CHECK(*all[0].runs[1].energy_j == 5.5e6);
  CHECK(all[1].references.size() == 1);
  CHECK(all[1].references[0].verdict == "met");
  CHECK(db.sets({"other", 0}).size() == 1);
  CHECK(db.sets({"", 1}).size() == 1);
  CHECK(db.set(ida)->accelerator == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(db.set(999));
}

TEST_CASE("results database: the same set recorded again (--resume) replaces its record and keeps its id") {
  TempDir t;
  ResultsDb db = ResultsDb::open(t.file("r.db"), true);
  SetRecord s = sample_set("/out/a", "260101");
  const int64_t id = db.record(s);
  s.runs.pop_back();
  s.score_min.reset();
  CHECK(db.record(s) == id);
  const auto all = db.sets({});
  REQUIRE(all.size() == 1);
  CHECK(all[0].runs.size() == 2);
  CHECK_FALSE(all[0].score_min);
}

TEST_CASE("results database: WAL journal and the schema version") {
  TempDir t;
  const std::string path = t.file("r.db");
  { ResultsDb db = ResultsDb::open(path, true); }
  SqliteDb raw(path, false, 1000);
  Stmt mode = raw.prepare("PRAGMA journal_mode");
  REQUIRE(mode.step());
  CHECK(mode.text(0) == "wal");
  CHECK(schema_version(raw) == int(schema_migrations().size()));
}

TEST_CASE("results database: migrations run in order, once, from any older version") {
  TempDir t;
  const std::string path = t.file("m.db");
  const std::vector<Migration> v1 = {{"one table", "CREATE TABLE a (x INTEGER);"}};
  const std::vector<Migration> v2 = {v1[0], {"a new column", "ALTER TABLE a ADD COLUMN y TEXT;"}};
  {
    SqliteDb db(path, true, 1000);
    migrate(db, v1);
    CHECK(schema_version(db) == 1);
    db.exec("INSERT INTO a (x) VALUES (7)");
  }
  SqliteDb db(path, false, 1000);
  migrate(db, v2);
  CHECK(schema_version(db) == 2);
  migrate(db, v2);  // nothing left to do
  Stmt s = db.prepare("SELECT x, y FROM a");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 7);
  CHECK(s.text(1).empty());
}

TEST_CASE("results database: written by a newer harness, a corrupt file, no such folder, disk full: one clear error") {
  TempDir t;
  const std::string newer = t.file("newer.db");
  {
    SqliteDb db(newer, true, 1000);
    db.exec("PRAGMA user_version = 99");
  }
  CHECK_THROWS_WITH_AS(ResultsDb::open(newer, true), doctest::Contains("written by a newer harness (schema version 99"), DbError);

  const std::string corrupt = t.write("corrupt.db", std::string(8192, 'x'));
  CHECK_THROWS_WITH_AS(ResultsDb::open(corrupt, true), doctest::Contains("file is not a database"), DbError);

  const std::string blocker = t.write("a_file", "not a folder");
  CHECK_THROWS_WITH_AS(ResultsDb::open(blocker + "/results.db", true), doctest::Contains("cannot create its folder"), DbError);
  CHECK_THROWS_WITH_AS(ResultsDb::open(t.file("absent.db"), false), doctest::Contains("no such file"), DbError);

  // A full disk as SQLite reports it: the write fails with SQLITE_FULL and nothing half-written stays.
  const std::string full = t.file("full.db");
  ResultsDb db = ResultsDb::open(full, true);
  db.record(sample_set("/out/small", "1"));
  {
    SqliteDb raw(full, false, 1000);
    Stmt pc = raw.prepare("PRAGMA page_count");
    pc.step();
    raw.exec("PRAGMA max_page_count = " + std::to_string(pc.integer(0)));
    SetRecord big = sample_set("/out/big", "2");
    big.rcp_message = std::string(200000, 'm');
    Stmt ins = raw.prepare("INSERT INTO sets (recorded_at, origin, system_name, output_dir, rcp_message) VALUES ('x', 'run', 's', '/o', ?1)");
    ins.bind(1, big.rcp_message);
    CHECK_THROWS_WITH_AS(ins.run(), doctest::Contains("database or disk is full"), DbError);
  }
  CHECK(db.sets({}).size() == 1);
}

TEST_CASE("results database: where it lives") {
  CHECK(results_db_path("/x/y.db", {{"BERT_RESULTS_DB", "/e.db"}}) == "/x/y.db");
  CHECK(results_db_path("", {{"BERT_RESULTS_DB", "/e.db"}, {"XDG_DATA_HOME", "/d"}}) == "/e.db");
  CHECK(results_db_path("", {{"XDG_DATA_HOME", "/d"}, {"HOME", "/h"}}) == "/d/bert-harness/results.db");
  CHECK(results_db_path("", {{"XDG_DATA_HOME", "relative"}, {"HOME", "/h"}}) == "/h/.local/share/bert-harness/results.db");
  CHECK(results_db_path("", {{"HOME", "/h"}}) == "/h/.local/share/bert-harness/results.db");
}
