#include "harness/run/set_state.h"

#include <stdexcept>

#include "harness/run/output_tree.h"

namespace bert::harness {

using ojson = nlohmann::ordered_json;

namespace {
constexpr std::pair<ExpStatus, const char*> kNames[] = {
    {ExpStatus::Pending, "pending"},         {ExpStatus::Running, "running"},
    {ExpStatus::Converged, "converged"},     {ExpStatus::NotConverged, "not_converged"},
    {ExpStatus::Failed, "failed"},           {ExpStatus::Interrupted, "interrupted"}};
}  // namespace

const char* to_string(ExpStatus s) {
  for (auto& [v, n] : kNames)
    if (v == s) return n;
  return "pending";
}

ExpStatus exp_status_from_string(const std::string& s) {
  for (auto& [v, n] : kNames)
    if (s == n) return v;
  throw std::runtime_error("unknown experiment status '" + s + "'");
}

bool is_finished(ExpStatus s) {
  return s == ExpStatus::Converged || s == ExpStatus::NotConverged || s == ExpStatus::Failed;
}

ojson SetState::to_json() const {
  ojson j;
  j["system"] = system;
  j["datestamp"] = datestamp;
  j["nexp"] = nexp;
  j["interrupted"] = interrupted;
  j["interrupt_signal"] = interrupt_signal;
  j["experiments"] = ojson::array();
  for (const auto& e : experiments) {
    ojson x;
    x["index"] = e.index;
    x["seed"] = e.seed;
    x["status"] = to_string(e.status);
    x["launched"] = e.launched;
    x["log"] = e.log;
    x["result"] = e.result;
    x["message"] = e.message;
    x["failed_rank"] = e.failed_rank;
    x["failed_node"] = e.failed_node;
    x["exit_status"] = e.exit_status;
    x["compliant"] = e.compliant ? ojson(*e.compliant) : ojson(nullptr);
    x["compliance_failure"] = e.compliance_failure;
    x["ttt_minutes"] = e.ttt_minutes ? ojson(*e.ttt_minutes) : ojson(nullptr);
    x["samples"] = e.samples ? ojson(*e.samples) : ojson(nullptr);
    x["cache_cleared"] = e.cache_cleared;
    x["wall_seconds"] = e.wall_seconds;
    x["timings"] = {{"cache_clear_s", e.timings.cache_clear_s}, {"first_line_s", e.timings.first_line_s},
                    {"check_s", e.timings.check_s}};
    j["experiments"].push_back(x);
  }
  j["nodes"] = harness::to_json(nodes);
  j["timings"] = {{"setup_s", timings.setup_s}, {"preflight_s", timings.preflight_s}};
  return j;
}

SetState SetState::from_json(const ojson& j) {
  SetState s;
  s.system = j.at("system").get<std::string>();
  s.datestamp = j.at("datestamp").get<std::string>();
  s.nexp = j.at("nexp").get<int>();
  s.interrupted = j.value("interrupted", false);
  s.interrupt_signal = j.value("interrupt_signal", 0);
  for (const auto& x : j.at("experiments")) {
    ExperimentRecord e;
    e.index = x.at("index").get<int>();
    e.seed = x.at("seed").get<uint64_t>();
    e.status = exp_status_from_string(x.at("status").get<std::string>());
    e.launched = x.value("launched", false);
    e.log = x.value("log", "");
    e.result = x.value("result", "");
    e.message = x.value("message", "");
    e.failed_rank = x.value("failed_rank", -1);
    e.failed_node = x.value("failed_node", "");
    e.exit_status = x.value("exit_status", "");
    if (x.contains("compliant") && x["compliant"].is_boolean()) e.compliant = x["compliant"].get<bool>();
    e.compliance_failure = x.value("compliance_failure", "");
    if (x.contains("ttt_minutes") && x["ttt_minutes"].is_number()) e.ttt_minutes = x["ttt_minutes"].get<double>();
    if (x.contains("samples") && x["samples"].is_number()) e.samples = x["samples"].get<double>();
    if (x.contains("cache_cleared")) e.cache_cleared = x["cache_cleared"].get<std::vector<bool>>();
    e.wall_seconds = x.value("wall_seconds", 0.0);
    if (x.contains("timings")) {
      const auto& t = x["timings"];
      e.timings.cache_clear_s = t.value("cache_clear_s", 0.0);
      e.timings.first_line_s = t.value("first_line_s", -1.0);
      e.timings.check_s = t.value("check_s", 0.0);
    }
    s.experiments.push_back(e);
  }
  if (j.contains("nodes")) s.nodes = node_records_from_json(j.at("nodes"));
  if (j.contains("timings")) {
    s.timings.setup_s = j["timings"].value("setup_s", 0.0);
    s.timings.preflight_s = j["timings"].value("preflight_s", 0.0);
  }
  if (s.nexp != int(s.experiments.size())) throw std::runtime_error("nexp does not match the experiment list");
  return s;
}

void save_state(const std::string& path, const SetState& s) { write_file_atomic(path, s.to_json().dump(2) + "\n"); }

SetState load_state(const std::string& path) {
  std::string text = read_file(path);
  try {
    return SetState::from_json(ojson::parse(text));
  } catch (const std::exception& e) {
    throw UserError(path + ": not a valid state file: " + e.what());
  }
}

}  // namespace bert::harness
