#include "harness/plan/plan.h"

#include <stdexcept>

#include "binding/binding_json.h"

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


const char* cache_policy_name(CachePolicy p) {
  switch (p) {
    case CachePolicy::Required: return "required";
    case CachePolicy::BestEffort: return "best-effort";
    case CachePolicy::Off: return "off";
  }
  return "off";
}

namespace {

CachePolicy cache_from(const std::string& s) {
  if (s == "required") return CachePolicy::Required;
  if (s == "best-effort") return CachePolicy::BestEffort;
  if (s == "off") return CachePolicy::Off;
  throw std::invalid_argument("experiment.cache_clear: unknown policy '" + s + "'");
}

json command_json(const Command& c) {
  json j{{"argv", c.argv}, {"env", c.env}, {"shell", c.shell()}};
  if (!c.creates.empty()) j["creates"] = c.creates;
  if (!c.cwd.empty()) j["cwd"] = c.cwd;
  return j;
}

Command command_from(const json& j) {
  Command c;
  j.at("argv").get_to(c.argv);
  if (j.contains("env")) c.env = j.at("env").get<std::map<std::string, std::string>>();
  c.creates = j.value("creates", "");
  c.cwd = j.value("cwd", "");
  return c;
}

}  // namespace

json Plan::to_json() const {
  json j;
  j["system_file"] = system_file;
  j["config_name"] = config_name;
  j["system_name"] = system_name;
  j["launcher"] = launcher;
  j["mpi"] = mpi;
  j["num_nodes"] = num_nodes;
  j["ranks_per_node"] = ranks_per_node;
  j["world_size"] = world_size;
  j["env"] = env;
  j["binding"] = {{"cpu", binding.cpu}, {"mem", binding.mem}, {"unit", binding.unit}, {"apply", binding.apply},
                  {"nic", binding.nic}};
  j["container"] = {{"runtime", container.runtime}, {"image", container.image}};
  j["experiment"] = {{"nexp", experiment.nexp},
                     {"cache_clear", cache_policy_name(experiment.cache_clear)},
                     {"cache_clear_sudo", experiment.cache_clear_sudo},
                     {"seed_policy", experiment.seed_policy},
                     {"seeds", experiment.seeds},
                     {"seeds_recorded_in", experiment.seeds_recorded_in},
                     {"run_walltime", experiment.run_walltime},
                     {"job_walltime", experiment.job_walltime},
                     {"walltime_derived", experiment.walltime_derived},
                     {"output_dir", experiment.output_dir},
                     {"ruleset", experiment.ruleset},
                     {"division", experiment.division}};
  j["target_accuracy"] = target_accuracy;
  j["rcp"] = rcp;
  j["rendezvous_dir"] = rendezvous_dir;
  json setup_j = json::array();
  for (const Command& c : setup) setup_j.push_back(command_json(c));
  j["setup"] = std::move(setup_j);
  j["submit"] = command_json(submit);
  j["per_node"] = command_json(per_node);
  j["cache_clear"] = command_json(cache_clear);
  j["trainer"] = command_json(trainer);
  j["launch"] = command_json(launch);
  j["host_bind"] = host_bind;
  j["topology_assumed"] = topology_assumed;
  j["data_paths"] = data_paths;
  j["trainer_run"] = {{"kind", trainer_run.kind},           {"profile", trainer_run.profile},
                      {"seed_env", trainer_run.seed_env},   {"experiment_env", trainer_run.experiment_env},
                      {"log_source", trainer_run.log_source}, {"log_file", trainer_run.log_file}};
  j["files"] = files;
  j["plan_file"] = plan_file;
  j["run_config_file"] = run_config_file;
  j["trainer_config"] = trainer_config;
  j["trainer_program"] = trainer_program;
  j["trainer_status"] = trainer_status;
  j["system_json"] = system_json;
  j["warnings"] = warnings;
  j["source"] = {{"commit", source.commit}, {"dirty", source.dirty}, {"dir", source.dir}};
  j["probe"] = probe ? probe->to_json() : json(nullptr);
  j["probe_file"] = probe_file;
  j["excluded"] = excluded;
  j["sets"] = sets;
  json nodes_j = json::array();
  for (const NodePlan& n : nodes) {
    json ranks_j = json::array();
    for (const RankPlan& r : n.ranks) {
      ranks_j.push_back({{"global_rank", r.global_rank},
                         {"node_index", r.node_index},
                         {"local_rank", r.local_rank},
                         {"binding", r.binding},
                         {"env", r.env},
                         {"command_prefix", r.command_prefix}});
    }
    nodes_j.push_back({{"hostname", n.hostname}, {"topology", n.topology}, {"ranks", std::move(ranks_j)}});
  }
  j["nodes"] = std::move(nodes_j);
  return j;
}

Plan Plan::from_json(const json& j) {
  Plan p;
  j.at("system_file").get_to(p.system_file);
  j.at("config_name").get_to(p.config_name);
  j.at("system_name").get_to(p.system_name);
  j.at("launcher").get_to(p.launcher);
  j.at("mpi").get_to(p.mpi);
  j.at("num_nodes").get_to(p.num_nodes);
  j.at("ranks_per_node").get_to(p.ranks_per_node);
  j.at("world_size").get_to(p.world_size);
  p.env = j.at("env").get<std::map<std::string, std::string>>();
  const json& b = j.at("binding");
  b.at("cpu").get_to(p.binding.cpu);
  b.at("mem").get_to(p.binding.mem);
  b.at("unit").get_to(p.binding.unit);
  b.at("apply").get_to(p.binding.apply);
  p.binding.nic = b.value("nic", "auto");
  j.at("container").at("runtime").get_to(p.container.runtime);
  j.at("container").at("image").get_to(p.container.image);
  const json& e = j.at("experiment");
  e.at("nexp").get_to(p.experiment.nexp);
  p.experiment.cache_clear = cache_from(e.at("cache_clear").get<std::string>());
  e.at("cache_clear_sudo").get_to(p.experiment.cache_clear_sudo);
  e.at("seed_policy").get_to(p.experiment.seed_policy);
  e.at("seeds").get_to(p.experiment.seeds);
  e.at("seeds_recorded_in").get_to(p.experiment.seeds_recorded_in);
  e.at("run_walltime").get_to(p.experiment.run_walltime);
  e.at("job_walltime").get_to(p.experiment.job_walltime);
  e.at("walltime_derived").get_to(p.experiment.walltime_derived);
  e.at("output_dir").get_to(p.experiment.output_dir);
  e.at("ruleset").get_to(p.experiment.ruleset);
  e.at("division").get_to(p.experiment.division);
  j.at("target_accuracy").get_to(p.target_accuracy);
  j.at("rcp").get_to(p.rcp);
  j.at("rendezvous_dir").get_to(p.rendezvous_dir);
  for (const json& c : j.at("setup")) p.setup.push_back(command_from(c));
  p.submit = command_from(j.at("submit"));
  p.per_node = command_from(j.at("per_node"));
  p.cache_clear = command_from(j.at("cache_clear"));
  p.trainer = command_from(j.at("trainer"));
  p.launch = command_from(j.at("launch"));
  j.at("host_bind").get_to(p.host_bind);
  p.topology_assumed = j.value("topology_assumed", false);  // plans written before these fields (--resume)
  p.data_paths = j.value("data_paths", std::map<std::string, std::string>{});
  const json& tr = j.at("trainer_run");
  tr.at("kind").get_to(p.trainer_run.kind);
  tr.at("profile").get_to(p.trainer_run.profile);
  tr.at("seed_env").get_to(p.trainer_run.seed_env);
  tr.at("experiment_env").get_to(p.trainer_run.experiment_env);
  tr.at("log_source").get_to(p.trainer_run.log_source);
  tr.at("log_file").get_to(p.trainer_run.log_file);
  p.files = j.at("files").get<std::map<std::string, std::string>>();
  j.at("plan_file").get_to(p.plan_file);
  j.at("run_config_file").get_to(p.run_config_file);
  p.trainer_config = j.at("trainer_config");
  j.at("trainer_program").get_to(p.trainer_program);
  j.at("trainer_status").get_to(p.trainer_status);
  p.system_json = j.at("system_json");
  j.at("warnings").get_to(p.warnings);
  if (j.contains("source")) {  // plans written before the source was recorded have none
    const json& s = j.at("source");
    s.at("commit").get_to(p.source.commit);
    s.at("dirty").get_to(p.source.dirty);
    s.at("dir").get_to(p.source.dir);
  }
  if (j.contains("probe") && !j.at("probe").is_null()) p.probe = ProbeProjection::from_json(j.at("probe"));
  p.probe_file = j.value("probe_file", "");
  p.excluded = j.value("excluded", std::vector<std::string>{});
  p.sets = j.value("sets", std::vector<std::string>{});
  for (const json& nj : j.at("nodes")) {
    NodePlan n;
    nj.at("hostname").get_to(n.hostname);
    n.topology = nj.at("topology").get<binding::NodeTopology>();
    for (const json& rj : nj.at("ranks")) {
      RankPlan r;
      rj.at("global_rank").get_to(r.global_rank);
      rj.at("node_index").get_to(r.node_index);
      rj.at("local_rank").get_to(r.local_rank);
      r.binding = rj.at("binding").get<binding::RankBinding>();
      r.env = rj.at("env").get<std::map<std::string, std::string>>();
      rj.at("command_prefix").get_to(r.command_prefix);
      n.ranks.push_back(std::move(r));
    }
    p.nodes.push_back(std::move(n));
  }
  return p;
}

}  // namespace bert::harness
