// The config's variables onto system keys: the profile's rows (BATCHSIZE, LR, ...), the data paths as the
// implementation names them, the image, the flags in EXTRA_PARAMS, the rendezvous, a Samsung-style launcher
// script's hosts, and every other variable: ignored with a reason, the profile's own, NCCL_* job-wide, or
// passed verbatim to the implementation.
#include <algorithm>
#include <sstream>

#include "common/user_error.h"
#include "harness/import/import_state.h"
#include "harness/import/launcher_script.h"

namespace bert::harness {
namespace {

// Variables that mean something to run.sub or sbatch only, not to a run the harness plans.
const std::map<std::string, std::string>& known_ignored() {
  static const std::map<std::string, std::string> m{
      {"DGXSOCKETCORES", "topology: from the base's hwloc description (bindpcie ignores it too)"},
      {"DGXNSOCKET", "topology: from the base's hwloc description"},
      {"DGXHT", "topology: from the base's hwloc description"},
      {"SLURM_NTASKS", "srun sets it for every step (ranks = nodes.count x nodes.gpus_per_node)"},
      {"CONTAINER_PRELOAD_LUSTRE", "run.sub's Lustre pre-import; the harness imports the image in its setup step"},
      {"SBATCH_NETWORK", "read by sbatch at submission (keep it in the submitting shell)"},
      {"MAXQ_CLK", "GPU clock locking is run.sub's (ssh nvidia-smi -lgc), not done by the harness"},
      {"MINEDP_CLK", "GPU clock locking is run.sub's (ssh nvidia-smi -lgc), not done by the harness"},
      {"DATADIR_PHASE2_PACKED", "only an input of DATADIR_PHASE2=${DATADIR_PHASE2_PACKED}"},
      {"CONT", "container.image comes from CONT_FILE when both are set (run.sub: CONT_FILE wins)"},
  };
  return m;
}

// The profile's flags in the config's extra-arguments variable (EXTRA_PARAMS): switches first (one may
// set the implementation's default of another key), then valued flags, the last one winning as in the
// implementation's argument parser. One table row per flag; a variable row it overrides says so.
void map_extra_flags(const ImportOptions& o, const TrainerProfile& prof, const std::map<std::string, std::string>& vars,
                     YAML::Node y, std::map<std::string, ImportRow>& rows) {
  auto it = prof.extra_args_env.empty() ? vars.end() : vars.find(prof.extra_args_env);
  if (it == vars.end()) return;
  std::vector<std::string> words;
  std::istringstream in(it->second);
  for (std::string w; in >> w;) words.push_back(w);
  std::map<std::string, std::pair<std::string, std::string>> keys;  // system key -> (value, flag)
  for (const bool switches : {true, false}) {
    for (size_t i = 0; i < words.size(); ++i) {
      const size_t eq = words[i].find('=');
      const std::string name = words[i].substr(0, eq);
      for (const ProfileFlag& f : prof.flags) {
        if (f.flag != name || f.switch_value.empty() == switches) continue;
        std::string value = f.switch_value;
        if (!switches) {
          if (eq != std::string::npos) value = words[i].substr(eq + 1);
          else if (i + 1 < words.size() && !words[i + 1].starts_with("--")) value = words[i + 1];
          else throw UserError(Loc{o.config}, prof.extra_args_env, name + " has no value (" + name + "=V or " + name + " V)");
          if (value.empty()) throw UserError(Loc{o.config}, prof.extra_args_env, name + " has an empty value");
        }
        keys[f.system_key] = {value, name};
      }
    }
  }
  for (const auto& [key, vf] : keys) {
    const auto& [value, flag] = vf;
    set_key(y, key, YAML::Node(value));
    for (auto& [var, vr] : rows)
      if (vr.status == "mapped" && vr.target == key && vr.value != value)
        vr.target += " (overridden: " + prof.extra_args_env + " " + flag + " " + value + ")";
  }
  for (const auto& [key, vf] : keys) {
    const auto& [value, flag] = vf;
    ImportRow& r = rows[prof.extra_args_env + " " + flag];
    const bool is_switch = std::any_of(prof.flags.begin(), prof.flags.end(),
                                       [&](const ProfileFlag& f) { return f.flag == flag && !f.switch_value.empty(); });
    r = {prof.extra_args_env + " " + flag, is_switch ? "(switch)" : value, "mapped",
         (r.target.empty() ? "" : r.target + ", ") + key + (is_switch ? " " + value : "")};
  }
}

}  // namespace

void import_variables(ImportState& s) {
  const ImportOptions& o = s.o;
  const TrainerProfile& prof = *s.prof;
  const auto& vars = s.vars;
  const bool nvidia = s.nvidia;
  auto has = [&](const std::string& v) { return s.has(v); };
  auto map_to = [&](const std::string& var, const std::string& key, const std::string& value) { s.map_to(var, key, value); };
  auto row = [&](const std::string& var, const std::string& status, const std::string& target) { s.row(var, status, target); };
  // The profile's variables, the other direction (BATCHSIZE = batch x accumulation: batch = BATCHSIZE / GA).
  for (const ProfileVariable& v : prof.variables) {
    if (!has(v.name)) continue;
    std::string value = vars.at(v.name);
    if (!v.times_key.empty()) {
      std::string ga = "1";
      for (const ProfileVariable& w : prof.variables)
        if (w.system_key == v.times_key && has(w.name)) ga = vars.at(w.name);
      long long b = 0, g = 0;
      try {
        b = std::stoll(value);
        g = std::stoll(ga);
      } catch (const std::exception&) {
        throw UserError(Loc{o.config}, v.name, "'" + value + "' / accumulation '" + ga + "' are not whole numbers");
      }
      if (g <= 0 || b % g != 0)
        throw UserError(Loc{o.config}, v.name, value + " is not a multiple of the gradient accumulation " + ga);
      value = std::to_string(b / g);
    }
    map_to(v.name, v.system_key, value);
  }
  if (has("NEXP")) map_to("NEXP", "experiment.nexp", vars.at("NEXP"));
  // paths, as the implementation names them
  if (has(prof.train.env)) map_to(prof.train.env, "benchmark.data.train_dir", vars.at(prof.train.env));
  if (has(prof.eval.env)) map_to(prof.eval.env, "benchmark.data.eval_dir", vars.at(prof.eval.env));
  if (has(prof.checkpoint.env)) {
    // The builtin trainer reads its weights HDF5, converted from MLPerf's TF checkpoint in the same folder.
    const std::string dir = vars.at(prof.checkpoint.env);
    if (!nvidia) {
      map_to(prof.checkpoint.env, "benchmark.data.checkpoint", dir + "/model.ckpt-28252.h5");
      s.rows[prof.checkpoint.env].target += " (" + dir + "/model.ckpt-28252.h5: the weights HDF5 in that folder)";
      s.r.notes.push_back("the builtin trainer reads the phase-1 weights as HDF5: bert-data convert-checkpoint " + dir +
                        "/model.ckpt-28252 " + dir + "/model.ckpt-28252.h5");
    } else {
      map_to(prof.checkpoint.env, "benchmark.data.checkpoint", prof.checkpoint_file.empty() ? dir : dir + "/" + prof.checkpoint_file);
      if (!prof.checkpoint_file.empty())
        s.rows[prof.checkpoint.env].target += " (" + dir + "/" + prof.checkpoint_file + ": the file " + prof.name + " opens there)";
    }
  }
  if (has(prof.results.env)) map_to(prof.results.env, "experiment.output_dir", vars.at(prof.results.env));
  for (const ProfilePath* p : {&prof.train, &prof.eval, &prof.checkpoint, &prof.results})
    if (!p->env.empty() && vars.count(p->env) && vars.at(p->env).empty()) row(p->env, "ignored", "empty (set it before importing, or at run time)");
  if (has("CONT_FILE")) map_to("CONT_FILE", "container.image", vars.at("CONT_FILE"));
  else if (has("CONT")) map_to("CONT", "container.image", vars.at("CONT"));
  if (has("SLURM_MPI_TYPE")) map_to("SLURM_MPI_TYPE", "launcher.srun.mpi", vars.at("SLURM_MPI_TYPE"));
  else if (nvidia && !s.launch.mpi.empty()) {  // as run.sub's srun
    s.set("launcher.srun.mpi", YAML::Node(s.launch.mpi));
    s.r.origins.push_back("launcher.srun.mpi " + s.launch.mpi + ": " + s.launch.why);
  } else if (nvidia && !s.base) {
    s.r.origins.push_back("launcher.srun.mpi pmix: run.sub's default (srun --mpi=${SLURM_MPI_TYPE:-pmix})");
  }
  if (nvidia && !s.launch.argv.empty() && s.launch.argv != prof.argv) {
    YAML::Node argv(YAML::NodeType::Sequence);
    std::string words;
    for (const std::string& a : s.launch.argv) {
      argv.push_back(a);
      words += (words.empty() ? "" : " ") + a;
    }
    s.set("trainer.argv", argv);
    s.r.origins.push_back("trainer.argv [" + words + "]: " + s.launch.why);
  }
  map_extra_flags(o, prof, vars, s.y, s.rows);
}

void import_launcher_script(ImportState& s) {
  const ImportOptions& o = s.o;
  // A Samsung-style launcher script: the node list and GPUs per node live there.
  const std::string script = default_launcher_script(o);
  if (!s.nvidia && !script.empty()) {
    LauncherScriptTopology t = read_launcher_script(script, o.bash.timeout_s);
    if (!t.hosts.empty()) {
      s.set("launcher.type", YAML::Node("mpirun"));
      YAML::Node hosts(YAML::NodeType::Sequence);
      for (const std::string& h : t.hosts) hosts.push_back(h);
      s.set("launcher.mpirun.hosts", hosts);
      s.set("launcher.mpirun.hostfile", YAML::Node(""));
      s.set("nodes.count", YAML::Node(std::to_string(t.hosts.size())));
      s.r.notes.push_back(script + ": hosts=(" + std::to_string(t.hosts.size()) + " hosts) -> nodes.count, launcher.mpirun.hosts");
    }
    if (!t.gpus_per_node.empty()) {
      s.set("nodes.gpus_per_node", YAML::Node(t.gpus_per_node));
      s.r.notes.push_back(script + ": NGPU=" + t.gpus_per_node + " -> nodes.gpus_per_node");
    }
  }
}

void import_rest(ImportState& s) {
  const TrainerProfile& prof = *s.prof;
  // Everything else: ignored with a reason, the profile's own fixed values, NCCL_* job-wide, the rest verbatim.
  std::map<std::string, std::string> fixed(prof.env.begin(), prof.env.end());
  for (const auto& [k, v] : s.vars) {
    if (s.rows.count(k)) continue;
    if (auto it = known_ignored().find(k); it != known_ignored().end()) {
      s.row(k, "ignored", it->second);
    } else if (fixed.count(k) && fixed.at(k) == v) {
      s.row(k, "mapped", "trainer.profile " + prof.name + " sets it");
    } else if (k.starts_with("NCCL_")) {
      s.set("env." + k, YAML::Node(v));
      s.row(k, "mapped", "env." + k);
    } else if (s.nvidia) {
      s.set("trainer.env." + k, YAML::Node(v));
      s.row(k, "passed", "trainer.env." + k);
    } else {
      s.row(k, "ignored", "the builtin trainer runs this config (" + prof.name + "'s launcher is not a per-rank program)");
    }
  }
}

void import_external(ImportState& s) {
  if (!s.nvidia) {
    s.r.origins.push_back("trainer.kind builtin: " + s.launch.why);
    return;
  }
  s.set("trainer.kind", YAML::Node("external"));
  s.set("trainer.profile", YAML::Node(s.prof->name));
  s.r.origins.push_back("trainer.kind external, trainer.profile " + s.prof->name + ": " + s.launch.why);
  // run_and_time.sh binds each rank itself (bindpcie) when started one task per GPU by srun; bindpcie reads
  // the node and knows nothing of reserved CPUs, so with those the harness binds (srun masks without them).
  const std::string reserved = s.base_cfg ? s.base_cfg->str("topology.reserved_cpus") : "";
  s.set("binding.apply", YAML::Node(reserved.empty() ? "trainer" : "launcher"));
  if (reserved.empty())
    s.r.origins.push_back("binding.apply trainer: run_and_time.sh binds each rank itself (bindpcie); the table's binding is "
                          "what it should do");
  else
    s.r.origins.push_back("binding.apply launcher: the base reserves CPUs " + reserved + " (topology.reserved_cpus), which the "
                          "implementation's own binding (bindpcie) does not know; srun's --cpu-bind masks from the plan leave them out");
  if (!s.has("CONT_FILE") && !s.has("CONT")) {  // not the base's image: that one holds our trainer, not theirs
    s.set("container.image", YAML::Node(""));
    s.r.origins.push_back("container.image none: CONT is not set (the base's image holds our trainer, not the implementation): "
                          "give the implementation's at run time (CONT=... harness run ...)");
  }
}

void import_rendezvous(ImportState& s) {
  if (!s.nvidia) return;  // the builtin trainer's ranks meet through the launcher (import_rest ignores these)
  // An address is a host of the config's own site; the plan gives every rank the first node (launcher.master_addr pins one).
  for (const std::string& var : s.prof->master_addr_env)
    if (s.vars.count(var))
      s.row(var, "ignored", "a rendezvous host of the config's own site: the harness gives every rank the first node of the job "
                            "(launcher.master_addr pins one)");
  const std::string& var = s.prof->master_port_env;
  const std::string port = s.value_of("launcher.master_port");
  if (var.empty() || !s.vars.count(var)) {
    if (!var.empty())
      s.r.origins.push_back(var + " " + port + ": launcher.master_port " +
                            (s.base_cfg && s.base_cfg->given("launcher.master_port") ? "of " + s.base_file : "by default") +
                            " (the config sets none)");
    return;
  }
  const std::string& value = s.vars.at(var);
  int n = 0;
  try {
    size_t used = 0;
    n = std::stoi(value, &used);
    if (used != value.size()) n = 0;
  } catch (const std::exception&) {
    n = 0;
  }
  if (n < 1 || n > 65535) {
    s.row(var, "ignored", "not a TCP port: the launch's " + var + " is launcher.master_port's " + port);
    return;
  }
  s.map_to(var, "launcher.master_port", value);
  s.rows[var].target += " (the launch's " + var + ")";
}

}  // namespace bert::harness
