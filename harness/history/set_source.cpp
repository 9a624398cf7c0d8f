#include "harness/history/set_source.h"

#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/user_error.h"
#include "harness/history/references.h"
#include "harness/history/run_log.h"
#include "harness/run/output_tree.h"
#include "harness/run/run.h"
#include "process/sha256.h"
#include "harness/run/summary.h"
#include "results/result_files.h"

namespace bert::harness::history {
namespace fs = std::filesystem;

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string absolute(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).string() : a.string();
}

std::string json_text(const nlohmann::ordered_json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The score's parts a record keeps, energy included (results/score.h: the official summarizer's, where
// the set has power logs).
void add_score(SetRecord& s, const results::ScoreResult& score) {
  s.score_min = score.score_minutes;
  if (!s.score_min) s.mean_min = short_set_mean_minutes(score);
  s.rcp_checked = score.rcp.checked;
  s.rcp_passed = score.rcp.passed;
  s.rcp_message = score.rcp.message;
  s.energy_j = score.energy_j;
  for (RunRecord& r : s.runs)
    for (const results::RunScore& run : score.runs)
      if (run.file == r.result_file) r.energy_j = run.energy_j;
}

void add_run_log(RunRecord& r, const fs::path& results_dir) {
  if (r.result_file.empty()) return;
  try {
    r.samples_per_s = read_run_log(results::read_file_bytes(results_dir / r.result_file)).samples_per_s;
  } catch (const std::exception&) {  // an unreadable file has no figure; the score said why
  }
}

const results::RunScore* scored(const std::optional<results::ScoreResult>& score, const std::string& file) {
  if (!score) return nullptr;
  for (const results::RunScore& r : score->runs)
    if (r.file == file) return &r;
  return nullptr;
}

}  // namespace

SetRecord record_from_run(const Plan& plan, const SetState& state, const std::string& root,
                          const std::optional<results::ScoreResult>& score) {
  SetRecord s;
  s.recorded_at = utc_now_iso();
  s.origin = "run";
  s.system_name = plan.system_name;
  s.config_name = plan.config_name;
  s.system_file = plan.system_file.empty() ? "" : absolute(plan.system_file);
  try {
    if (!s.system_file.empty()) s.system_file_sha256 = sha256_file(s.system_file);
  } catch (const std::exception&) {  // moved since: the record says so by an empty hash
  }
  s.harness_commit = plan.source.commit;
  s.harness_dirty = plan.source.dirty;
  s.nodes = plan.num_nodes;
  s.ranks_per_node = plan.ranks_per_node;
  s.accelerator = json_text(plan.system_json, "accelerator_model_name");
  if (s.accelerator.empty() && json_text(plan.system_json, "accelerators_per_node") == "0") s.accelerator = "none (CPU)";
  if (plan.trainer_config.is_object() && plan.trainer_config.contains("run")) {
    s.precision = json_text(plan.trainer_config["run"], "precision");
    s.backend = json_text(plan.trainer_config["run"], "backend");
  }
  s.container_image = plan.container.image;
  s.ruleset = plan.experiment.ruleset;
  s.division = std::string(enum_name(plan.experiment.division, kDivisionNames));
  s.datestamp = state.datestamp;
  s.output_dir = absolute(root);
  OutputTree tree{root, state.system, state.datestamp, state.nexp};
  s.results_dir = absolute(tree.results_dir());
  s.nexp = state.nexp;
  s.interrupted = state.interrupted;
  for (const ExperimentRecord& e : state.experiments) {
    RunRecord r;
    r.index = e.index;
    r.seed = int64_t(e.seed);
    r.status = to_string(e.status);
    r.ttt_min = e.ttt_minutes;
    if (e.samples && *e.samples < 1e9) r.samples_to_converge = e.samples;
    r.compliant = e.compliant;
    r.compliance_failure = e.compliance_failure;
    const std::string file = fs::path(tree.result(e.index)).filename().string();
    if (fs::exists(tree.result(e.index))) r.result_file = file;
    if (const results::RunScore* rs = scored(score, file)) r.olympic = std::string(results::to_string(rs->olympic));
    add_run_log(r, s.results_dir);
    s.runs.push_back(std::move(r));
  }
  if (score) add_score(s, *score);
  s.references = reference_verdicts(plan.references, s);
  return s;
}

SetRecord record_from_results(const std::string& results_dir, const results::ScoreResult& score) {
  SetRecord s;
  s.recorded_at = utc_now_iso();
  s.origin = "recorded";
  const fs::path dir = absolute(results_dir);
  s.output_dir = s.results_dir = dir.string();
  // An MLPerf submission: <org>/results/<system>/<benchmark>/, its description in <org>/systems/<system>.json.
  s.system_name = dir.parent_path().filename().string();
  s.division = score.division;
  const fs::path systems_json = dir.parent_path().parent_path().parent_path() / "systems" / (s.system_name + ".json");
  if (std::ifstream in(systems_json); in) {
    const ojson j = ojson::parse(in, nullptr, false);
    if (j.is_object()) {
      s.system_file = systems_json.string();
      s.config_name = json_text(j, "system_name");
      s.accelerator = json_text(j, "accelerator_model_name");
      try {
        s.nodes = std::stoi(json_text(j, "number_of_nodes"));
        s.ranks_per_node = std::stoi(json_text(j, "accelerators_per_node"));
      } catch (const std::exception&) {  // a description without the numbers: unknown (0)
      }
      try {
        s.system_file_sha256 = sha256_file(s.system_file);
      } catch (const std::exception&) {
      }
    }
  }
  s.nexp = int(score.runs.size());
  int i = 0;
  for (const results::RunScore& rs : score.runs) {
    RunRecord r;
    r.index = ++i;
    r.seed = rs.seed;
    r.status = rs.converged ? "converged" : "not_converged";
    r.ttt_min = rs.minutes;
    if (rs.samples_to_converge && *rs.samples_to_converge < 1e9) r.samples_to_converge = rs.samples_to_converge;
    r.compliant = rs.compliant;
    r.compliance_failure = rs.failure.substr(0, rs.failure.find('\n'));
    r.olympic = std::string(results::to_string(rs.olympic));
    r.result_file = rs.file;
    add_run_log(r, dir);
    s.runs.push_back(std::move(r));
  }
  add_score(s, score);
  return s;
}

std::string harness_set_root(const std::string& dir) {
  auto is_set = [](const fs::path& p) { return fs::exists(p / "state.json") && fs::exists(p / "plan.json"); };
  const fs::path d = absolute(dir);
  if (is_set(d)) return d.string();
  const fs::path up = d.parent_path().parent_path().parent_path();  // results/<system>/bert of a set
  if (d.parent_path().parent_path().filename() == "results" && is_set(up)) return up.string();
  return "";
}

SetRecord record_from_folder(const std::string& dir, const std::string& ruleset) {
  fs::path root = dir;
  std::error_code ec;
  results::ScoreOptions so;
  so.ruleset = ruleset;
  if (const std::string set_root = harness_set_root(dir); !set_root.empty()) {
    root = set_root;
    const Plan plan = load_plan_for_resume(root.string());
    const SetState state = load_state((root / "state.json").string());
    OutputTree tree{root.string(), state.system, state.datestamp, state.nexp};
    std::optional<results::ScoreResult> score;
    so.ruleset = plan.experiment.ruleset;
    try {
      score = results::score_results_dir(tree.results_dir(), so);
    } catch (const std::exception&) {  // no result file yet: a set without a score
    }
    return record_from_run(plan, state, root.string(), score);
  }
  fs::path res_dir = root;
  std::vector<fs::path> files;
  try {
    files = results::result_files(root);
  } catch (const UserError&) {
    throw UserError(Loc{dir}, "", "not a readable folder");
  }
  if (files.empty()) {  // an MLPerf layout above the results: <dir>/results/<system>/bert
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(root / "results", ec))
      if (fs::is_directory(e.path() / "bert", ec) && !results::result_files(e.path() / "bert").empty())
        found.push_back(e.path() / "bert");
    if (found.size() != 1)
      throw UserError(Loc{dir}, "",
                      found.empty() ? "neither a harness output folder (plan.json, state.json) nor a folder of result_*.txt"
                                    : "holds results of several systems: name one results/<system>/bert folder");
    res_dir = found.front();
  }
  return record_from_results(res_dir.string(), results::score_results_dir(res_dir, so));
}

}  // namespace bert::harness::history
