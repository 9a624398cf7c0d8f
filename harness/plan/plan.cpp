#include "harness/plan/plan.h"

#include <stdexcept>

#include "common/json_fields.h"

namespace bert {
// the enums of common/ (found by nlohmann's lookup in their own namespace)
BERT_JSON_ENUM(harness::json, Division, kDivisionNames)
}  // namespace bert

namespace bert::harness {
namespace {

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                c == '.' || c == '/' || c == ',' || c == ':' || c == '=' || c == '+' || c == '@' || c == '%';
    if (!safe) return true;
  }
  return false;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!needs_quotes(s)) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string Command::shell() const {
  std::string out = cwd.empty() ? "" : "cd " + shell_quote(cwd) + " && ";
  for (const auto& [k, v] : env) out += k + "=" + shell_quote(v) + " ";
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i) out += ' ';
    out += shell_quote(argv[i]);
  }
  return out;
}


// plan.json's parts, one member table each (common/json_fields.h); the keys are the members' names,
// settings are their words (harness/config/settings.h).
BERT_JSON_ENUM(json, CachePolicy, kCachePolicyNames)
BERT_JSON_ENUM(json, BindingApply, kBindingApplyNames)
BERT_JSON_ENUM(json, TrainerKind, kTrainerKindNames)
BERT_JSON_ENUM(json, LogSource, kLogSourceNames)

// experiment.seed_policy as its word ("fixed:7"); a word that is none throws std::invalid_argument
void to_json(json& j, const SeedPolicy& p) { j = p.word(); }
void from_json(const json& j, SeedPolicy& p) { p = parse_seed_policy(j.get<std::string>()); }

void to_json(json& j, const Command& c) {
  j = json{{"argv", c.argv}, {"env", c.env}, {"shell", c.shell()}};
  if (!c.creates.empty()) j["creates"] = c.creates;
  if (!c.cwd.empty()) j["cwd"] = c.cwd;
}

void from_json(const json& j, Command& c) {
  c = Command{};
  j.at("argv").get_to(c.argv);
  if (j.contains("env")) c.env = j.at("env").get<std::map<std::string, std::string>>();
  c.creates = j.value("creates", "");
  c.cwd = j.value("cwd", "");
}

// binding.* as resolved
constexpr auto kBindingFields = std::make_tuple(
    field("cpu", &BindingSummary::cpu), field("mem", &BindingSummary::mem),
    field("unit", &BindingSummary::unit), field("apply", &BindingSummary::apply),
    optional_field("nic", &BindingSummary::nic));
BERT_JSON_FIELDS(json, BindingSummary, kBindingFields)

// container.*
constexpr auto kContainerFields = std::make_tuple(
    field("runtime", &ContainerPlan::runtime), field("image", &ContainerPlan::image));
BERT_JSON_FIELDS(json, ContainerPlan, kContainerFields)

// experiment.* (NEXP, cache clearing, seeds, walltimes, output)
constexpr auto kExperimentFields = std::make_tuple(
    field("nexp", &ExperimentPlan::nexp), field("cache_clear", &ExperimentPlan::cache_clear),
    field("cache_clear_sudo", &ExperimentPlan::cache_clear_sudo),
    field("seed_policy", &ExperimentPlan::seed_policy), field("seeds", &ExperimentPlan::seeds),
    field("seeds_recorded_in", &ExperimentPlan::seeds_recorded_in),
    field("run_walltime", &ExperimentPlan::run_walltime), field("job_walltime", &ExperimentPlan::job_walltime),
    field("walltime_derived", &ExperimentPlan::walltime_derived),
    field("output_dir", &ExperimentPlan::output_dir), field("ruleset", &ExperimentPlan::ruleset),
    field("division", &ExperimentPlan::division));
BERT_JSON_FIELDS(json, ExperimentPlan, kExperimentFields)

// trainer.* (the program every rank runs)
constexpr auto kTrainerRunFields = std::make_tuple(
    field("kind", &TrainerPlan::kind), field("profile", &TrainerPlan::profile),
    field("seed_env", &TrainerPlan::seed_env), field("experiment_env", &TrainerPlan::experiment_env),
    field("log_source", &TrainerPlan::log_source), field("log_file", &TrainerPlan::log_file));
BERT_JSON_FIELDS(json, TrainerPlan, kTrainerRunFields)

// the source tree the harness was built from
constexpr auto kSourceFields = std::make_tuple(
    field("commit", &SourceInfo::commit), field("dirty", &SourceInfo::dirty), field("dir", &SourceInfo::dir));
BERT_JSON_FIELDS(json, SourceInfo, kSourceFields)

// references.<figure> as given
constexpr auto kReferenceFields = std::make_tuple(
    field("figure", &ReferenceTarget::figure), field("target", &ReferenceTarget::target),
    field("tolerance", &ReferenceTarget::tolerance));
BERT_JSON_FIELDS(json, ReferenceTarget, kReferenceFields)

// the last probe's projection (its own JSON form)
void to_json(json& j, const ProbeProjection& p) { j = p.to_json(); }
void from_json(const json& j, ProbeProjection& p) { p = ProbeProjection::from_json(j); }

constexpr auto kPowerFields = std::make_tuple(
    field("source", &PowerPlan::source), field("interval_s", &PowerPlan::interval_s),
    field("measurement_type", &PowerPlan::measurement_type), field("conversion_eff", &PowerPlan::conversion_eff),
    field("conversion_eff_given", &PowerPlan::conversion_eff_given), field("node_level", &PowerPlan::node_level),
    field("monitor_config", &PowerPlan::monitor_config), field("monitor_config_file", &PowerPlan::monitor_config_file),
    field("monitor", &PowerPlan::monitor), field("min_readings", &PowerPlan::min_readings),
    field("window_s", &PowerPlan::window_s), field("switches", &PowerPlan::switches),
    field("switch_watts", &PowerPlan::switch_watts), field("gpu_clock_mhz", &PowerPlan::gpu_clock_mhz),
    field("clock_lock", &PowerPlan::clock_lock), field("clock_reset", &PowerPlan::clock_reset));
BERT_JSON_FIELDS(json, PowerPlan, kPowerFields)

// the Plan, in plan.json's key order
constexpr auto kPlanFields = std::make_tuple(
    field("system_file", &Plan::system_file), field("config_name", &Plan::config_name),
    field("system_name", &Plan::system_name), field("launcher", &Plan::launcher), field("mpi", &Plan::mpi),
    field("num_nodes", &Plan::num_nodes), field("ranks_per_node", &Plan::ranks_per_node),
    field("world_size", &Plan::world_size), field("env", &Plan::env), field("binding", &Plan::binding),
    field("container", &Plan::container), field("experiment", &Plan::experiment),
    field("target_accuracy", &Plan::target_accuracy), field("rcp", &Plan::rcp),
    field("rendezvous_dir", &Plan::rendezvous_dir), field("setup", &Plan::setup),
    field("submit", &Plan::submit), field("per_node", &Plan::per_node),
    field("cache_clear", &Plan::cache_clear), field("trainer", &Plan::trainer), field("launch", &Plan::launch),
    field("host_bind", &Plan::host_bind),
    optional_field("topology_assumed", &Plan::topology_assumed),  // optional: plans written before it (--resume)
    optional_field("data_paths", &Plan::data_paths), field("trainer_run", &Plan::trainer_run),
    field("files", &Plan::files), field("plan_file", &Plan::plan_file),
    field("run_config_file", &Plan::run_config_file), field("trainer_config", &Plan::trainer_config),
    field("trainer_program", &Plan::trainer_program), field("trainer_status", &Plan::trainer_status),
    field("system_json", &Plan::system_json), field("warnings", &Plan::warnings),
    optional_field("source", &Plan::source), optional_field("probe", &Plan::probe),  // optional: older plans (--resume)
    optional_field("probe_file", &Plan::probe_file), optional_field("excluded", &Plan::excluded),
    optional_field("sets", &Plan::sets), optional_field("references", &Plan::references),  // optional: older plans
    optional_field("power", &Plan::power),
    field("nodes", &Plan::nodes));

json Plan::to_json() const { return fields_to_json<json>(*this, kPlanFields); }
Plan Plan::from_json(const json& j) { return fields_from_json<Plan>(j, kPlanFields); }

}  // namespace bert::harness
