#include "harness/history/results_db.h"

#include <filesystem>

#include "harness/history/db_schema.h"
#include "harness/history/sqlite_db.h"

namespace bert::harness::history {
namespace fs = std::filesystem;

namespace {

constexpr int kBusyMs = 30000;  // another set writing: its transaction takes milliseconds

std::string env_or(const std::map<std::string, std::string>& env, const std::string& k) {
  auto it = env.find(k);
  return it == env.end() ? "" : it->second;
}

// The sets table's columns, in the order record() binds and read_set() reads them.
constexpr const char* kSetColumns =
    "recorded_at, origin, system_name, config_name, system_file, system_file_sha256, harness_commit, harness_dirty, "
    "nodes, ranks_per_node, accelerator, precision, backend, container_image, ruleset, division, datestamp, output_dir, "
    "results_dir, nexp, interrupted, score_min, mean_min, energy_j, rcp_checked, rcp_passed, rcp_message";

void bind_set(Stmt& st, const SetRecord& s) {
  st.bind(1, s.recorded_at).bind(2, s.origin).bind(3, s.system_name).bind(4, s.config_name);
  st.bind(5, s.system_file).bind(6, s.system_file_sha256).bind(7, s.harness_commit).bind(8, s.harness_dirty);
  st.bind(9, s.nodes).bind(10, s.ranks_per_node).bind(11, s.accelerator).bind(12, s.precision);
  st.bind(13, s.backend).bind(14, s.container_image).bind(15, s.ruleset).bind(16, s.division);
  st.bind(17, s.datestamp).bind(18, s.output_dir).bind(19, s.results_dir).bind(20, s.nexp);
  st.bind(21, s.interrupted).bind(22, s.score_min).bind(23, s.mean_min).bind(24, s.energy_j);
  st.bind(25, s.rcp_checked).bind(26, s.rcp_passed).bind(27, s.rcp_message);
}

SetRecord read_set(const Stmt& st) {  // column 0 is the id, then kSetColumns
  SetRecord s;
  int i = 0;
  s.id = st.integer(i++);
  s.recorded_at = st.text(i++), s.origin = st.text(i++), s.system_name = st.text(i++), s.config_name = st.text(i++);
  s.system_file = st.text(i++), s.system_file_sha256 = st.text(i++), s.harness_commit = st.text(i++);
  s.harness_dirty = st.integer(i++) != 0;
  s.nodes = int(st.integer(i++)), s.ranks_per_node = int(st.integer(i++));
  s.accelerator = st.text(i++), s.precision = st.text(i++), s.backend = st.text(i++), s.container_image = st.text(i++);
  s.ruleset = st.text(i++), s.division = st.text(i++), s.datestamp = st.text(i++), s.output_dir = st.text(i++);
  s.results_dir = st.text(i++), s.nexp = int(st.integer(i++)), s.interrupted = st.integer(i++) != 0;
  s.score_min = st.opt_real(i++), s.mean_min = st.opt_real(i++), s.energy_j = st.opt_real(i++);
  s.rcp_checked = st.integer(i++) != 0, s.rcp_passed = st.integer(i++) != 0, s.rcp_message = st.text(i++);
  return s;
}

}  // namespace

std::string results_db_path(const std::string& flag, const std::map<std::string, std::string>& env) {
  if (!flag.empty()) return flag;
  if (std::string v = env_or(env, "BERT_RESULTS_DB"); !v.empty()) return v;
  std::string data = env_or(env, "XDG_DATA_HOME");
  if (data.empty() || data.front() != '/') {  // the spec: a relative XDG_DATA_HOME is ignored
    const std::string home = env_or(env, "HOME");
    data = (home.empty() ? std::string(".") : home) + "/.local/share";
  }
  return data + "/bert-harness/results.db";
}

ResultsDb::ResultsDb(std::string path, std::unique_ptr<SqliteDb> db) : path_(std::move(path)), db_(std::move(db)) {}
ResultsDb::~ResultsDb() = default;
ResultsDb::ResultsDb(ResultsDb&&) noexcept = default;

ResultsDb ResultsDb::open(const std::string& path, bool create) {
  if (create) {
    std::error_code ec;
    const fs::path dir = fs::path(path).parent_path();
    if (!dir.empty()) fs::create_directories(dir, ec);
    if (ec) throw DbError(14 /* SQLITE_CANTOPEN */, "cannot create its folder " + dir.string() + ": " + ec.message());
  } else if (!fs::exists(path)) {
    throw DbError(14, "no such file (no set has been recorded there yet)");
  }
  auto db = std::make_unique<SqliteDb>(path, create, kBusyMs);
  // WAL: readers never block the writer; the journal mode is a property of the file, set once.
  db->exec("PRAGMA journal_mode = WAL");
  db->exec("PRAGMA foreign_keys = ON");
  migrate(*db, schema_migrations());
  return ResultsDb(path, std::move(db));
}

int64_t ResultsDb::record(const SetRecord& s) {
  Transaction t(*db_);
  int64_t id = 0;
  {
    Stmt find = db_->prepare("SELECT id FROM sets WHERE output_dir = ?1 AND datestamp = ?2");
    find.bind(1, s.output_dir).bind(2, s.datestamp);
    if (find.step()) id = find.integer(0);
  }
  if (id) {
    Stmt up = db_->prepare(std::string("UPDATE sets SET (") + kSetColumns +
                           ") = (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27) WHERE id = ?28");
    bind_set(up, s);
    up.bind(28, id).run();
    for (const char* table : {"runs", "reference_verdicts"})
      db_->prepare(std::string("DELETE FROM ") + table + " WHERE set_id = ?1").bind(1, id).run();
  } else {
    Stmt ins = db_->prepare(std::string("INSERT INTO sets (") + kSetColumns +
                            ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27)");
    bind_set(ins, s);
    ins.run();
    id = db_->last_insert_id();
  }
  for (const RunRecord& r : s.runs) {
    Stmt st = db_->prepare(
        "INSERT INTO runs (set_id, idx, seed, status, ttt_min, samples_to_converge, samples_per_s, energy_j, compliant, "
        "compliance_failure, olympic, result_file) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
    st.bind(1, id).bind(2, r.index).bind(3, r.seed).bind(4, r.status).bind(5, r.ttt_min).bind(6, r.samples_to_converge);
    st.bind(7, r.samples_per_s).bind(8, r.energy_j).bind(9, r.compliant).bind(10, r.compliance_failure);
    st.bind(11, r.olympic).bind(12, r.result_file).run();
  }
  for (const ReferenceVerdict& v : s.references) {
    Stmt st = db_->prepare(
        "INSERT INTO reference_verdicts (set_id, figure, target, tolerance, value, basis, verdict) VALUES (?1,?2,?3,?4,?5,?6,?7)");
    st.bind(1, id).bind(2, v.figure).bind(3, v.target).bind(4, v.tolerance).bind(5, v.value).bind(6, v.basis);
    st.bind(7, v.verdict).run();
  }
  t.commit();
  return id;
}

void ResultsDb::load_children(SetRecord& s) {
  Stmt runs = db_->prepare(
      "SELECT idx, seed, status, ttt_min, samples_to_converge, samples_per_s, energy_j, compliant, compliance_failure, "
      "olympic, result_file FROM runs WHERE set_id = ?1 ORDER BY idx");
  runs.bind(1, s.id);
  while (runs.step()) {
    RunRecord r;
    r.index = int(runs.integer(0));
    r.seed = runs.opt_integer(1);
    r.status = runs.text(2);
    r.ttt_min = runs.opt_real(3), r.samples_to_converge = runs.opt_real(4), r.samples_per_s = runs.opt_real(5);
    r.energy_j = runs.opt_real(6);
    if (auto c = runs.opt_integer(7)) r.compliant = *c != 0;
    r.compliance_failure = runs.text(8), r.olympic = runs.text(9), r.result_file = runs.text(10);
    s.runs.push_back(std::move(r));
  }
  Stmt refs = db_->prepare(
      "SELECT figure, target, tolerance, value, basis, verdict FROM reference_verdicts WHERE set_id = ?1 ORDER BY rowid");
  refs.bind(1, s.id);
  while (refs.step())
    s.references.push_back({refs.text(0), *refs.opt_real(1), *refs.opt_real(2), refs.opt_real(3), refs.text(4), refs.text(5)});
}

std::vector<SetRecord> ResultsDb::sets(const SetFilter& f) {
  std::string sql = std::string("SELECT id, ") + kSetColumns + " FROM sets";
  if (!f.system.empty()) sql += " WHERE system_name = ?1";
  sql += " ORDER BY recorded_at DESC, id DESC";
  if (f.limit > 0) sql += " LIMIT " + std::to_string(f.limit);
  Stmt st = db_->prepare(sql);
  if (!f.system.empty()) st.bind(1, f.system);
  std::vector<SetRecord> out;
  while (st.step()) out.push_back(read_set(st));
  for (SetRecord& s : out) load_children(s);
  return out;
}

std::optional<SetRecord> ResultsDb::set(int64_t id) {
  Stmt st = db_->prepare(std::string("SELECT id, ") + kSetColumns + " FROM sets WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  SetRecord s = read_set(st);
  load_children(s);
  return s;
}

}  // namespace bert::harness::history
