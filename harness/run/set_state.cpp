#include "harness/run/set_state.h"

#include <stdexcept>

#include "common/json_fields.h"
#include "harness/run/output_tree.h"

namespace bert::harness {

using ojson = nlohmann::ordered_json;

namespace {
constexpr EnumNames<ExpStatus, 6> kNames{{
    {ExpStatus::Pending, "pending"}, {ExpStatus::Running, "running"}, {ExpStatus::Converged, "converged"},
    {ExpStatus::NotConverged, "not_converged"}, {ExpStatus::Failed, "failed"}, {ExpStatus::Interrupted, "interrupted"}}};
}  // namespace

const char* to_string(ExpStatus s) { return enum_name(s, kNames); }

ExpStatus exp_status_from_string(const std::string& s) {
  if (auto v = parse_enum(s, kNames)) return *v;
  throw std::runtime_error("unknown experiment status '" + s + "'");
}

bool is_finished(ExpStatus s) {
  return s == ExpStatus::Converged || s == ExpStatus::NotConverged || s == ExpStatus::Failed;
}

void to_json(ojson& j, ExpStatus s) { j = to_string(s); }
void from_json(const ojson& j, ExpStatus& s) { s = exp_status_from_string(j.get<std::string>()); }

// state.json, one member table each (common/json_fields.h).
constexpr auto kExperimentTimingFields = std::make_tuple(
    optional_field("cache_clear_s", &ExperimentTimings::cache_clear_s),
    optional_field("first_line_s", &ExperimentTimings::first_line_s), optional_field("check_s", &ExperimentTimings::check_s));
BERT_JSON_FIELDS(ojson, ExperimentTimings, kExperimentTimingFields)

constexpr auto kSetTimingFields = std::make_tuple(
    optional_field("setup_s", &SetTimings::setup_s), optional_field("preflight_s", &SetTimings::preflight_s));
BERT_JSON_FIELDS(ojson, SetTimings, kSetTimingFields)

// one experiment's record (older state files may lack the optional keys)
constexpr auto kExperimentFields = std::make_tuple(
    field("index", &ExperimentRecord::index), field("seed", &ExperimentRecord::seed),
    field("status", &ExperimentRecord::status), optional_field("launched", &ExperimentRecord::launched),
    optional_field("log", &ExperimentRecord::log), optional_field("result", &ExperimentRecord::result),
    optional_field("message", &ExperimentRecord::message),
    optional_field("failed_rank", &ExperimentRecord::failed_rank),
    optional_field("failed_node", &ExperimentRecord::failed_node),
    optional_field("exit_status", &ExperimentRecord::exit_status),
    optional_field("compliant", &ExperimentRecord::compliant),
    optional_field("compliance_failure", &ExperimentRecord::compliance_failure),
    optional_field("ttt_minutes", &ExperimentRecord::ttt_minutes),
    optional_field("power_errors", &ExperimentRecord::power_errors),
    optional_field("samples", &ExperimentRecord::samples),
    optional_field("cache_cleared", &ExperimentRecord::cache_cleared),
    optional_field("wall_seconds", &ExperimentRecord::wall_seconds),
    optional_field("timings", &ExperimentRecord::timings));
BERT_JSON_FIELDS(ojson, ExperimentRecord, kExperimentFields)

// the set: system, date, NEXP, interruption, the experiments
constexpr auto kSetFields = std::make_tuple(
    field("system", &SetState::system), field("datestamp", &SetState::datestamp),
    field("nexp", &SetState::nexp), optional_field("interrupted", &SetState::interrupted),
    optional_field("interrupt_signal", &SetState::interrupt_signal),
    field("experiments", &SetState::experiments), optional_field("nodes", &SetState::nodes),
    optional_field("timings", &SetState::timings));

ojson SetState::to_json() const { return fields_to_json<ojson>(*this, kSetFields); }

SetState SetState::from_json(const ojson& j) {
  const SetState s = fields_from_json<SetState>(j, kSetFields);
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
