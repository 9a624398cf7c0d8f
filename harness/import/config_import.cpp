#include "harness/import/config_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/user_error.h"
#include "harness/config/schema.h"
#include "harness/import/launcher_script.h"
#include "harness/import/system_bases.h"
#include "harness/plan/trainer_profiles.h"

namespace bert::harness {
namespace fs = std::filesystem;
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

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

void set_key(YAML::Node root, const std::string& path, const YAML::Node& value) {
  size_t dot = path.find('.');
  if (dot == std::string::npos) {
    root[path] = value;
    return;
  }
  // trainer.env.NAME / env.NAME: the rest is one name
  const std::string head = path.substr(0, dot);
  YAML::Node child = root[head];
  set_key(child, path.substr(dot + 1), value);
}


std::string choose_profile(const ImportOptions& o, const std::map<std::string, std::string>& vars) {
  if (!o.profile.empty()) {
    if (!find_trainer_profile(o.profile)) throw UserError(Loc{"harness import --profile"}, "", "'" + o.profile + "' is not a trainer profile");
    return o.profile;
  }
  if (vars.count("DGXNGPU") || vars.count("DGXNNODES") || vars.count("GRADIENT_STEPS")) return "nvidia-pytorch";
  if (vars.count("GRAD_STEPS") || vars.count("EVAL_START")) return "samsung-pytorch";
  return "nvidia-pytorch";
}

// A node no shipped base describes, from what run.sub's users give: srun with run.sub's --mpi default,
// and (DGXNSOCKET, DGXSOCKETCORES, DGXHT, DGXNGPU) a synthetic topology with the GPUs spread evenly over
// the sockets (inference: the DGX layout; a hwloc XML of the real node is better, see systems/topologies).
void describe_unknown_node(const std::map<std::string, std::string>& vars, bool nvidia, YAML::Node y,
                           std::map<std::string, ImportRow>& rows, std::vector<std::string>& notes) {
  auto get = [&](const char* k) { return vars.count(k) ? vars.at(k) : std::string(); };
  if (nvidia) {
    y["launcher"]["type"] = "srun";
    y["launcher"]["srun"]["mpi"] = "pmix";  // run.sub: --mpi=${SLURM_MPI_TYPE:-pmix}
  }
  const std::string sockets = get("DGXNSOCKET"), cores = get("DGXSOCKETCORES"), ht = get("DGXHT"), gpus = get("DGXNGPU");
  int n = 0, c = 0, t = 1, g = 0;
  try {
    n = std::stoi(sockets);
    c = std::stoi(cores);
    if (!ht.empty()) t = std::stoi(ht);
    if (!gpus.empty()) g = std::stoi(gpus);
  } catch (const std::exception&) {
    return;  // not given (or not numbers): no topology from the config
  }
  if (n < 1 || c < 1 || t < 1) return;
  const std::string synthetic = "pack:" + std::to_string(n) + " numa:1 core:" + std::to_string(c) + " pu:" + std::to_string(t);
  y["topology"]["synthetic"] = synthetic;
  for (const char* k : {"DGXNSOCKET", "DGXSOCKETCORES", "DGXHT"})
    if (vars.count(k)) rows[k] = {k, vars.at(k), "mapped", "topology.synthetic (" + synthetic + ")"};
  if (g > 0) {
    YAML::Node map(YAML::NodeType::Sequence);
    map.SetStyle(YAML::EmitterStyle::Flow);
    for (int i = 0; i < g; ++i) map.push_back(i * n / g);
    y["topology"]["gpu_numa_map"] = map;
    y["binding"]["unit"] = "gpu";
    notes.push_back("topology " + synthetic + " from DGXNSOCKET/DGXSOCKETCORES/DGXHT, GPUs spread evenly over the sockets "
                    "(an assumption: give topology.xml of the real node to pin it)");
  }
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
          else if (i + 1 < words.size() && !starts_with(words[i + 1], "--")) value = words[i + 1];
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

std::string default_launcher_script(const ImportOptions& o) {
  if (!o.launcher_script.empty()) return o.launcher_script;
  fs::path p = fs::path(o.config).parent_path() / "run_multinode.sh";
  return fs::exists(p) ? p.string() : "";
}

}  // namespace

ImportResult import_config(const ImportOptions& o) {
  BashEvalResult ev = bash_eval(o.config, o.bash);
  const std::map<std::string, std::string>& vars = ev.exported;
  const TrainerProfile& prof = *find_trainer_profile(choose_profile(o, vars));
  const bool nvidia = prof.name == "nvidia-pytorch";  // a per-rank program to run (Samsung's launcher is ssh)
  ImportResult r;
  for (const std::string& l : ev.ignored_lines) r.notes.push_back(l + " (a redacted line; skipped)");
  YAML::Node y(YAML::NodeType::Map);
  std::map<std::string, ImportRow> rows;
  auto row = [&](const std::string& var, const std::string& status, const std::string& target) {
    rows[var] = {var, vars.count(var) ? vars.at(var) : "", status, target};
  };
  auto map_to = [&](const std::string& var, const std::string& key, const std::string& value) {
    set_key(y, key, YAML::Node(value));
    row(var, "mapped", key);
  };
  auto has = [&](const std::string& var) { return vars.count(var) && !vars.at(var).empty(); };

  const std::string dgxsystem = has("DGXSYSTEM") ? vars.at("DGXSYSTEM")
                                                 : fs::path(o.config).stem().string().substr(starts_with(fs::path(o.config).stem().string(), "config_") ? 7 : 0);
  // extends: the hardware base, or (unknown hardware) the phase-2 settings and the node as the config says
  auto extend = [&](const std::string& file) {
    fs::path target = fs::absolute(fs::path(o.systems_dir) / file).lexically_normal();
    fs::path from = o.output.empty() ? fs::current_path() : fs::absolute(o.output).parent_path();
    const std::string rel = fs::relative(target, from).string();
    y["extends"] = rel.rfind("..", 0) == 0 ? target.string() : rel;  // relative only inside systems/
  };
  if (const SystemBase* base = find_system_base(dgxsystem)) {
    extend(base->file);
  } else {
    extend("common/bert_phase2.yaml");
    describe_unknown_node(vars, nvidia, y, rows, r.notes);
    r.notes.push_back("no shipped hardware base for '" + dgxsystem + "'" +
                      (y["topology"] ? "" : ": the topology is this host's unless you add topology.*"));
  }

  // What no config says: who submits, in which division (the closed rules need a submitter).
  if (!o.submitter.empty()) {
    set_key(y, "system.submitter", YAML::Node(o.submitter));
    r.notes.push_back("system.submitter: " + o.submitter + " (--submitter)");
  }
  if (!o.division.empty()) {
    if (o.division != "closed" && o.division != "open")
      throw UserError(Loc{"harness import --division"}, "", "'" + o.division + "' is not a division (closed or open)");
    set_key(y, "experiment.division", YAML::Node(o.division));
    r.notes.push_back("experiment.division: " + o.division + " (--division)");
  }

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
  // walltime: per run (minutes) and for the whole job
  for (const char* var : {"WALLTIME_RUNANDTIME", "WALLTIME_MINUTES"})
    if (has(var) && !rows.count("WALLTIME_RUNANDTIME")) map_to(var, "experiment.run_walltime", vars.at(var));
  if (has("WALLTIME")) {
    if (vars.at("WALLTIME") == "UNLIMITED") row("WALLTIME", "ignored", "UNLIMITED: no job limit");
    else map_to("WALLTIME", "experiment.job_walltime", vars.at("WALLTIME"));
  }
  // paths, as the implementation names them
  if (has(prof.train.env)) map_to(prof.train.env, "benchmark.data.train_dir", vars.at(prof.train.env));
  if (has(prof.eval.env)) map_to(prof.eval.env, "benchmark.data.eval_dir", vars.at(prof.eval.env));
  if (has(prof.checkpoint.env))
    map_to(prof.checkpoint.env, "benchmark.data.checkpoint",
           prof.checkpoint_file.empty() ? vars.at(prof.checkpoint.env) : vars.at(prof.checkpoint.env) + "/" + prof.checkpoint_file);
  if (has(prof.results.env)) map_to(prof.results.env, "experiment.output_dir", vars.at(prof.results.env));
  for (const ProfilePath* p : {&prof.train, &prof.eval, &prof.checkpoint, &prof.results})
    if (!p->env.empty() && vars.count(p->env) && vars.at(p->env).empty()) row(p->env, "ignored", "empty (set it before importing, or at run time)");
  if (has("CONT_FILE")) map_to("CONT_FILE", "container.image", vars.at("CONT_FILE"));
  else if (has("CONT")) map_to("CONT", "container.image", vars.at("CONT"));
  if (has("SLURM_MPI_TYPE")) map_to("SLURM_MPI_TYPE", "launcher.srun.mpi", vars.at("SLURM_MPI_TYPE"));
  map_extra_flags(o, prof, vars, y, rows);

  // Samsung-style launcher script: the node list and GPUs per node live there.
  const std::string script = default_launcher_script(o);
  if (!nvidia && !script.empty()) {
    LauncherScriptTopology t = read_launcher_script(script, o.bash.timeout_s);
    if (!t.hosts.empty()) {
      set_key(y, "launcher.type", YAML::Node("mpirun"));
      YAML::Node hosts(YAML::NodeType::Sequence);
      for (const std::string& h : t.hosts) hosts.push_back(h);
      set_key(y, "launcher.mpirun.hosts", hosts);
      set_key(y, "launcher.mpirun.hostfile", YAML::Node(""));
      set_key(y, "nodes.count", YAML::Node(std::to_string(t.hosts.size())));
      r.notes.push_back(script + ": hosts=(" + std::to_string(t.hosts.size()) + " hosts) -> nodes.count, launcher.mpirun.hosts");
    }
    if (!t.gpus_per_node.empty()) {
      set_key(y, "nodes.gpus_per_node", YAML::Node(t.gpus_per_node));
      r.notes.push_back(script + ": NGPU=" + t.gpus_per_node + " -> nodes.gpus_per_node");
    }
  }

  // Everything else: ignored with a reason, the profile's own fixed values, NCCL_* job-wide, the rest verbatim.
  std::map<std::string, std::string> fixed(prof.env.begin(), prof.env.end());
  for (const auto& [k, v] : vars) {
    if (rows.count(k)) continue;
    if (auto it = known_ignored().find(k); it != known_ignored().end()) {
      row(k, "ignored", it->second);
    } else if (fixed.count(k) && fixed.at(k) == v) {
      row(k, "mapped", "trainer.profile " + prof.name + " sets it");
    } else if (starts_with(k, "NCCL_")) {
      set_key(y, "env." + k, YAML::Node(v));
      row(k, "mapped", "env." + k);
    } else if (nvidia) {
      set_key(y, "trainer.env." + k, YAML::Node(v));
      row(k, "passed", "trainer.env." + k);
    } else {
      row(k, "ignored", "the builtin trainer runs this config (" + prof.name + "'s launcher is not a per-rank program)");
    }
  }

  if (nvidia) {
    set_key(y, "trainer.kind", YAML::Node("external"));
    set_key(y, "trainer.profile", YAML::Node(prof.name));
    // run_and_time.sh binds each rank itself (bindpcie) when started one task per GPU by srun.
    set_key(y, "binding.apply", YAML::Node("trainer"));
    if (!has("CONT_FILE") && !has("CONT")) {  // not the base's image: that one holds our trainer, not theirs
      set_key(y, "container.image", YAML::Node(""));
      r.notes.push_back("CONT is not set: give the implementation's image at run time (CONT=... harness run ...)");
    }
  }
  for (auto& [k, row_] : rows) r.rows.push_back(row_);

  YAML::Emitter em;
  em << y;
  std::string header = "# Imported by `harness import` from " + fs::absolute(o.config).lexically_normal().string() + " (profile " +
                       prof.name + ")";
  for (const std::string& n : r.notes) header += "\n# note: " + n;
  r.yaml = header + "\n" + em.c_str() + "\n";
  return r;
}

std::string import_table(const ImportResult& r) {
  std::string out;
  size_t w = 8;
  for (const ImportRow& x : r.rows) w = std::max(w, x.variable.size());
  for (const char* status : {"mapped", "passed", "ignored"}) {
    std::string title = std::string(status) == "passed" ? "passed through (verbatim)" : status;
    out += title + "\n";
    for (const ImportRow& x : r.rows) {
      if (x.status != status) continue;
      std::string value = x.value.size() > 40 ? x.value.substr(0, 37) + "..." : x.value;
      out += "  " + x.variable + std::string(w + 1 - x.variable.size(), ' ') + "= " + value +
             std::string(value.size() < 40 ? 41 - value.size() : 1, ' ') + "-> " + x.target + "\n";
    }
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace bert::harness
