#include "harness/import/config_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "common/user_error.h"
#include "harness/config/config.h"
#include "harness/config/did_you_mean.h"
#include "harness/config/naming.h"
#include "harness/config/schema.h"
#include "harness/import/launch_reader.h"
#include "harness/import/launcher_script.h"
#include "harness/import/system_bases.h"
#include "harness/plan/node_layout.h"
#include "harness/plan/trainer_profiles.h"
#include "harness/plan/walltime.h"
#include "harness/run/output_tree.h"

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

// The walltime keys being added in issue 14 (per run / whole job); today's keys until they exist.
std::string run_walltime_key() { return schema_find("experiment.run_walltime") ? "experiment.run_walltime" : "launcher.srun.time_per_run"; }
std::string job_walltime_key() { return schema_find("experiment.job_walltime") ? "experiment.job_walltime" : "experiment.walltime"; }

// A node no shipped base describes (its launcher: srun, as run.sub's), from what run.sub's users give: a topology assumed from the config's own variables, never read from the host importing it (a login node
// has no GPUs): DGXNSOCKET, DGXSOCKETCORES and DGXHT when given (else one socket with a core per GPU), the
// DGXNGPU GPUs spread evenly over the sockets (the DGX layout). topology.assumed tells the plan and the
// preflight that it is an assumption: each compute node's GPU count is checked, not its whole description.
void describe_unknown_node(const std::map<std::string, std::string>& vars, YAML::Node y, std::map<std::string, ImportRow>& rows,
                           std::vector<std::string>& notes) {
  auto number = [&](const char* k, int fallback) {
    if (!vars.count(k) || vars.at(k).empty()) return fallback;
    try {
      size_t used = 0;
      const int v = std::stoi(vars.at(k), &used);
      return used == vars.at(k).size() && v >= 1 ? v : -1;
    } catch (const std::exception&) {
      return -1;
    }
  };
  const int g = number("DGXNGPU", 0), n = number("DGXNSOCKET", 0), c = number("DGXSOCKETCORES", 0), t = number("DGXHT", 1);
  if (g < 0 || n < 0 || c < 0 || t < 0) {
    notes.push_back("DGXNGPU/DGXNSOCKET/DGXSOCKETCORES/DGXHT are not all whole numbers: no topology assumed; give --topology "
                    "NODE.xml (or --set topology.synthetic=...)");
    return;
  }
  if (g == 0 && (n == 0 || c == 0)) {
    notes.push_back("no DGXNGPU, DGXNSOCKET or DGXSOCKETCORES: no topology assumed; give --topology NODE.xml (or --set "
                    "topology.synthetic=... and nodes.gpus_per_node)");
    return;
  }
  const bool cpus_given = n > 0 && c > 0;
  const int sockets = cpus_given ? n : 1, cores = cpus_given ? c : std::max(1, g), pus = cpus_given ? t : 1;
  const std::string synthetic = "pack:" + std::to_string(sockets) + " numa:1 core:" + std::to_string(cores) + " pu:" + std::to_string(pus);
  y["topology"]["synthetic"] = synthetic;
  y["topology"]["assumed"] = "true";
  for (const char* k : {"DGXNSOCKET", "DGXSOCKETCORES", "DGXHT"})
    if (vars.count(k) && cpus_given) rows[k] = {k, vars.at(k), "mapped", "topology.synthetic (" + synthetic + ", assumed)"};
  if (g > 0) {
    YAML::Node map(YAML::NodeType::Sequence);
    map.SetStyle(YAML::EmitterStyle::Flow);
    for (int i = 0; i < g; ++i) map.push_back(i * sockets / g);
    y["topology"]["gpu_numa_map"] = map;
    y["binding"]["unit"] = "gpu";
  }
  notes.push_back("assumed topology " + synthetic + (g > 0 ? " with " + std::to_string(g) + " GPU(s) spread evenly over the sockets" : "") +
                  (cpus_given ? " (DGXNSOCKET/DGXSOCKETCORES/DGXHT" : " (no DGXNSOCKET/DGXSOCKETCORES: one core per GPU") +
                  (g > 0 ? ", DGXNGPU)" : ")") +
                  ": not this host's; the preflight checks each compute node's GPU count. --topology NODE.xml pins the real one");
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

// A helper the config sources that its folder lacks (its repository lacks it: a config copied out of
// NVIDIA's tree, a helper left in the submitter's other implementation folder, a name built from a
// variable the site sets). What stands in, as a note; "" when nothing does.
std::string stand_in_for(ImportOptions& o, const MissingSourceError& e) {
  const fs::path folder = fs::absolute(o.config).lexically_normal().parent_path();
  const std::string name = fs::path(e.missing).filename().string();
  // 1. an unset variable in the helper's name: the <SYSTEM> of the config's file name (config_<SYSTEM>_NxGxBxA)
  static const std::regex var(R"(\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?)");
  const std::string word = e.command.substr(e.command.find_last_of(" /") + 1);
  const auto n = parse_mlperf_name(fs::path(o.config).filename().string());
  if (n && starts_with(n->system, "config_"))
    for (std::sregex_iterator it(word.begin(), word.end(), var), end; it != end; ++it) {
      const std::string v = (*it)[1];
      if (o.bash.env.count(v)) continue;
      const std::string system = n->system.substr(7);
      const std::string file = std::regex_replace(word, std::regex("\\$\\{?" + v + "\\}?"), system);
      if (!fs::is_regular_file(folder / file)) continue;
      o.bash.env[v] = system;
      return v + " is unset and names the helper (" + word + "): " + v + "=" + system +
             ", the system of the config's file name (--env " + v + "=... to choose)";
    }
  // 2. the same file in another implementation folder of the submitter
  std::error_code ec;
  std::vector<fs::path> found;
  for (const fs::directory_entry& d : fs::directory_iterator(folder.parent_path(), ec))
    if (d.is_directory() && d.path() != folder && fs::is_regular_file(d.path() / name)) found.push_back(d.path() / name);
  std::sort(found.begin(), found.end());
  if (!found.empty()) {
    o.bash.stand_ins[name] = read_file(found.front().string());
    return name + " is not beside the config: " + found.front().string() + " stands in (the same submitter's other implementation)";
  }
  // 3. config_<SYSTEM>_common.sh of hardware a shipped base describes: the base's node
  static const std::regex common(R"(^config_(.+)_common\.sh$)");
  std::smatch m;
  if (std::regex_match(name, m, common))
    if (const SystemBase* base = find_system_base(m[1])) {
      const NodeLayout l = plan_node_layout(Config::load((fs::path(o.systems_dir) / base->file).string()));
      const auto& t = l.topology;
      const int ht = t.cores > 0 ? t.pus / t.cores : 1, per_socket = t.packages > 0 ? t.cores / t.packages : t.cores;
      o.bash.stand_ins[name] = "export DGXNGPU=" + std::to_string(l.gpus) + " DGXNSOCKET=" + std::to_string(t.packages) +
                               " DGXSOCKETCORES=" + std::to_string(per_socket) + " DGXHT=" + std::to_string(ht) + "\n";
      return name + " is not beside the config (its repository lacks it): the node of the shipped base " + base->file +
             " stands in (DGXNGPU=" + std::to_string(l.gpus) + " DGXNSOCKET=" + std::to_string(t.packages) + " DGXSOCKETCORES=" +
             std::to_string(per_socket) + " DGXHT=" + std::to_string(ht) + "); put the implementation's own beside it to use that";
  }
  return "";
}

// bash_eval, with a stand-in for each helper the config's folder lacks (stand_in_for); the error of one
// nothing stands in for names the helpers the folder has.
BashEvalResult source_config(ImportOptions& o, std::vector<std::string>& notes) {
  for (int attempt = 0;; ++attempt) {
    try {
      return bash_eval(o.config, o.bash);
    } catch (const MissingSourceError& e) {
      const std::string fix = attempt < 4 ? stand_in_for(o, e) : "";
      if (!fix.empty()) {
        notes.push_back(fix);
        continue;
      }
      std::vector<std::string> helpers;
      std::error_code ec;
      for (const fs::directory_entry& d : fs::directory_iterator(fs::absolute(o.config).parent_path(), ec))
        if (d.path().extension() == ".sh" && d.path().filename() != fs::path(o.config).filename()) helpers.push_back(d.path().filename().string());
      const std::string near = closest(fs::path(e.missing).filename().string(), helpers);
      throw UserError(e.loc, "", e.message + "; the config's folder lacks the file it sources" +
                                     (near.empty() ? "" : " (the folder has " + near + ")") +
                                     ": put it beside the config, or give the variables it sets with --env NAME=VALUE or --source-first FILE");
    }
  }
}

// A submitter's own prefix for NVIDIA's DGX* variables (Fujitsu v1.1: PGNNODES, PGNGPU, PGSYSTEM, read by
// its run.sub and run_and_time.sh alike): taken as the DGX* ones when the config has no DGXNNODES/DGXNGPU.
std::string alias_dgx_names(std::map<std::string, std::string>& vars) {
  if (vars.count("DGXNNODES") || vars.count("DGXNGPU")) return "";
  for (const auto& [k, v] : vars) {
    if (k.size() <= 4 || k.compare(k.size() - 4, 4, "NGPU") != 0) continue;
    const std::string prefix = k.substr(0, k.size() - 4);
    if (prefix == "DGX" || !vars.count(prefix + "NNODES")) continue;
    std::string names;
    for (const char* tail : {"NNODES", "NGPU", "SYSTEM", "NSOCKET", "SOCKETCORES", "HT"})
      if (vars.count(prefix + tail) && !vars.count(std::string("DGX") + tail)) {
        vars[std::string("DGX") + tail] = vars.at(prefix + tail);
        names += (names.empty() ? "" : ", ") + prefix + tail;
      }
    return names + ": this submitter's names for NVIDIA's DGX* variables, read as those";
  }
  return "";
}

// Does the config's WALLTIME follow NEXP (a job of NEXP runs: v2.x-v4.x's NEXP x WALLTIME_MINUTES + 5), or
// is it one run's job (v1.x: WALLTIME=01:15:00, submitted with one experiment per job)? Bash tells: source
// the config again with another NEXP.
bool walltime_follows_nexp(const ImportOptions& o, const std::map<std::string, std::string>& vars) {
  BashEvalOptions other = o.bash;
  other.env["NEXP"] = other.env["NEXP"] == "1" ? "2" : "1";
  BashEvalResult again = bash_eval(o.config, other);
  return !again.exported.count("WALLTIME") || again.exported.at("WALLTIME") != vars.at("WALLTIME");
}

}  // namespace

ImportResult import_config(const ImportOptions& opts) {
  ImportOptions o = opts;
  std::vector<std::string> first_notes;
  if (!o.bash.env.count("NEXP")) {  // the set's NEXP: configs size WALLTIME with it (${NEXP:-1} otherwise)
    o.bash.env["NEXP"] = schema_find("experiment.nexp")->def;
    first_notes.push_back("NEXP=" + o.bash.env["NEXP"] + " while sourcing (the set's experiment.nexp; --nexp N to change)");
  }
  BashEvalResult ev = source_config(o, first_notes);
  std::map<std::string, std::string> vars = ev.exported;
  const std::string alias = alias_dgx_names(vars);
  const LaunchChoice launch = read_launch(o.config, vars, o.profile);
  const TrainerProfile& prof = *find_trainer_profile(launch.profile);
  const bool nvidia = launch.per_rank;  // a per-rank program to run (not Samsung's ssh, not PaddlePaddle's orterun)
  ImportResult r;
  r.profile = launch.profile;
  r.profile_why = launch.why;
  r.notes = first_notes;
  if (launch.guessed) r.warnings.push_back("the implementation's launch was guessed: " + launch.why);
  if (!alias.empty()) r.notes.push_back(alias);
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
  std::string reserved_cpus;  // the base's CPUs kept from ranks (Inventec: WekaIO's)
  const SystemBase* base = find_system_base(dgxsystem);
  if (base) {
    extend(base->file);
    reserved_cpus = Config::load((fs::path(o.systems_dir) / base->file).string()).str("topology.reserved_cpus");
  } else {
    extend("common/bert_phase2.yaml");
    r.notes.push_back("no shipped hardware base for '" + dgxsystem + "'");
    if (nvidia) {
      y["launcher"]["type"] = "srun";
      y["launcher"]["srun"]["mpi"] = "pmix";  // run.sub: --mpi=${SLURM_MPI_TYPE:-pmix}
    }
    if (o.topology.empty()) describe_unknown_node(vars, y, rows, r.notes);
  }
  if (!o.topology.empty()) {  // the real node's hwloc XML (lstopo --of xml), relative to the YAML
    if (!fs::is_regular_file(o.topology)) throw UserError(Loc{o.topology}, "", "harness import --topology: cannot read the file");
    fs::path target = fs::absolute(o.topology).lexically_normal();
    fs::path from = o.output.empty() ? fs::current_path() : fs::absolute(o.output).parent_path();
    y["topology"] = YAML::Node(YAML::NodeType::Map);
    y["topology"]["xml"] = fs::relative(target, from).string();
    for (const char* k : {"synthetic", "gpu_numa_map"}) y["topology"][k] = YAML::Node(YAML::NodeType::Null);  // not the base's
    r.notes.push_back("topology.xml: " + o.topology + " (--topology)");
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
    if (has(var) && !rows.count("WALLTIME_RUNANDTIME")) map_to(var, run_walltime_key(), vars.at(var));
  if (has("WALLTIME")) {
    if (is_unlimited_walltime(vars.at("WALLTIME"))) {
      row("WALLTIME", "ignored", vars.at("WALLTIME") + ": no job limit");
    } else if (!walltime_follows_nexp(o, vars)) {
      if (rows.count("WALLTIME_RUNANDTIME") || rows.count("WALLTIME_MINUTES")) {
        map_to("WALLTIME", job_walltime_key(), vars.at("WALLTIME"));
      } else {
        map_to("WALLTIME", run_walltime_key(), vars.at("WALLTIME"));
        rows["WALLTIME"].target += " (it does not change with NEXP: one run's job, as v1.x submitted one experiment per job; "
                                   "the job's limit follows from NEXP)";
      }
    } else if (rows.count("WALLTIME_RUNANDTIME") || rows.count("WALLTIME_MINUTES")) {
      row("WALLTIME", "ignored", "follows NEXP and the per-run limit: the harness derives the job's limit from those, "
                                 "5 + NEXP x (run + 5) minutes, also for a later NEXP");
    } else {
      map_to("WALLTIME", job_walltime_key(), vars.at("WALLTIME"));
    }
  }
  // paths, as the implementation names them
  if (has(prof.train.env)) map_to(prof.train.env, "benchmark.data.train_dir", vars.at(prof.train.env));
  if (has(prof.eval.env)) map_to(prof.eval.env, "benchmark.data.eval_dir", vars.at(prof.eval.env));
  if (has(prof.checkpoint.env)) {
    // The builtin trainer reads its weights HDF5, converted from MLPerf's TF checkpoint in the same folder.
    const std::string dir = vars.at(prof.checkpoint.env);
    if (!nvidia) {
      map_to(prof.checkpoint.env, "benchmark.data.checkpoint", dir + "/model.ckpt-28252.h5");
      r.notes.push_back("the builtin trainer reads the phase-1 weights as HDF5: bert-data convert-checkpoint " + dir +
                        "/model.ckpt-28252 " + dir + "/model.ckpt-28252.h5");
    } else {
      map_to(prof.checkpoint.env, "benchmark.data.checkpoint", prof.checkpoint_file.empty() ? dir : dir + "/" + prof.checkpoint_file);
    }
  }
  if (has(prof.results.env)) map_to(prof.results.env, "experiment.output_dir", vars.at(prof.results.env));
  for (const ProfilePath* p : {&prof.train, &prof.eval, &prof.checkpoint, &prof.results})
    if (!p->env.empty() && vars.count(p->env) && vars.at(p->env).empty()) row(p->env, "ignored", "empty (set it before importing, or at run time)");
  if (has("CONT_FILE")) map_to("CONT_FILE", "container.image", vars.at("CONT_FILE"));
  else if (has("CONT")) map_to("CONT", "container.image", vars.at("CONT"));
  if (has("SLURM_MPI_TYPE")) map_to("SLURM_MPI_TYPE", "launcher.srun.mpi", vars.at("SLURM_MPI_TYPE"));
  else if (nvidia && !launch.mpi.empty()) set_key(y, "launcher.srun.mpi", YAML::Node(launch.mpi));  // as run.sub's srun
  if (nvidia && !launch.argv.empty() && launch.argv != prof.argv) {
    YAML::Node argv(YAML::NodeType::Sequence);
    for (const std::string& a : launch.argv) argv.push_back(a);
    set_key(y, "trainer.argv", argv);
  }
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
    // run_and_time.sh binds each rank itself (bindpcie) when started one task per GPU by srun; bindpcie reads
    // the node and knows nothing of reserved CPUs, so with those the harness binds (srun masks without them).
    set_key(y, "binding.apply", YAML::Node(reserved_cpus.empty() ? "trainer" : "launcher"));
    if (!reserved_cpus.empty())
      r.notes.push_back("binding.apply launcher: the base reserves CPUs " + reserved_cpus + " (topology.reserved_cpus), which the "
                        "implementation's own binding (bindpcie) does not know; srun's --cpu-bind masks from the plan leave them out");
    if (!has("CONT_FILE") && !has("CONT")) {  // not the base's image: that one holds our trainer, not theirs
      set_key(y, "container.image", YAML::Node(""));
      r.notes.push_back("CONT is not set: give the implementation's image at run time (CONT=... harness run ...)");
    }
  }
  for (const std::string& kv : o.sets) {  // last: over everything the config gave
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    const std::string parent = key.substr(0, key.rfind('.') == std::string::npos ? 0 : key.rfind('.'));
    const bool map_item = !parent.empty() && schema_find(parent) && schema_find(parent)->type == ValueType::StringMap;
    if (eq == std::string::npos || eq == 0 || (!schema_find(key) && !map_item))
      throw UserError(Loc{"harness import --set " + kv}, key, eq == std::string::npos ? "expected key.path=value" : "not a system key (harness schema lists them)");
    YAML::Node value;
    try {
      value = YAML::Load(kv.substr(eq + 1).empty() ? "''" : kv.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw UserError(Loc{"harness import --set " + kv}, key, std::string("not a YAML value: ") + e.what());
    }
    set_key(y, key, value);
    r.notes.push_back(key + ": " + kv.substr(eq + 1) + " (--set)");
  }
  const YAML::Node& cy = y;  // const: operator[] does not add the key
  if (nvidia && !base && !cy["topology"] && !(cy["nodes"] && cy["nodes"]["gpus_per_node"]))
    throw UserError(Loc{o.config}, "DGXNGPU",
                    "no GPU count: the config sets no DGXNGPU and no shipped hardware base describes '" + dgxsystem +
                        "'; give the node with --topology NODE.xml (lstopo --of xml on a compute node) or --set "
                        "nodes.gpus_per_node=N --set topology.synthetic='pack:2 numa:1 core:C pu:1' --set topology.assumed=true "
                        "(a plan never counts the GPUs of the host importing it)");
  for (auto& [k, row_] : rows) r.rows.push_back(row_);

  YAML::Emitter em;
  em << y;
  std::string header = "# Imported by `harness import` from " + fs::absolute(o.config).lexically_normal().string() + " (profile " +
                       prof.name + ")";
  for (const std::string& n : r.notes) header += "\n# note: " + n;
  r.yaml = header + "\n" + em.c_str() + "\n";
  return r;
}

std::vector<std::string> topology_contradictions(const ImportResult& r, const NodeFacts& node) {
  std::vector<std::string> out;
  auto value = [&](const std::string& var) -> long {
    for (const ImportRow& x : r.rows)
      if (x.variable == var) try {
          size_t used = 0;
          const long v = std::stol(x.value, &used);
          return used == x.value.size() ? v : -1;
        } catch (const std::exception&) {
          return -1;
        }
    return -1;
  };
  auto differ = [&](const std::string& var, long in_config, long in_base, const std::string& what) {
    if (in_config >= 0 && in_config != in_base)
      out.push_back(var + "=" + std::to_string(in_config) + " but " + node.source + " has " + std::to_string(in_base) + " " + what +
                    " (the plan follows the topology; run_and_time's bindpcie reads the node itself)");
  };
  differ("DGXNSOCKET", value("DGXNSOCKET"), node.packages, "socket(s)");
  if (node.packages > 0) differ("DGXSOCKETCORES", value("DGXSOCKETCORES"), node.cores / node.packages, "cores per socket");
  if (node.cores > 0) differ("DGXHT", value("DGXHT"), node.pus / node.cores, "hardware thread(s) per core");
  if (value("DGXNGPU") > node.gpus) differ("DGXNGPU", value("DGXNGPU"), node.gpus, "GPU(s)");  // fewer: a part of the node
  return out;
}

std::string import_table(const ImportResult& r) {
  std::string out = "profile " + r.profile + ": " + r.profile_why + "\n";
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
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace bert::harness
