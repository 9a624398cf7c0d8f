#include "harness/plan/build_plan.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "binding/binding_json.h"
#include "container/pyxis.h"
#include "harness/config/naming.h"
#include "harness/config/schema.h"
#include "slurm/hostlist.h"
#include "slurm/launch_lines.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

// Container-side places of the data, checkpoint and output directories (pyxis mounts).
constexpr const char* kTrainMount = "/data/train";
constexpr const char* kEvalMount = "/data/eval";
constexpr const char* kCheckpointMount = "/data/checkpoint";
constexpr const char* kResultsMount = "/results";

// A binding error's field -> the key path to point at.
std::string field_key(const Config& cfg, const std::string& field) {
  if (field == "topology") return cfg.given("topology.xml") ? "topology.xml" : "topology.synthetic";
  if (field == "binding.ranks_per_node") return "nodes.ranks_per_node";
  return field;
}

[[noreturn]] void fail_at(const Config& cfg, const std::string& key, const std::string& msg) {
  Loc loc = cfg.loc(key);
  if (loc.line == 0 && loc.file == cfg.file()) loc.line = loc.col = 1;  // a default: point at the file
  throw ConfigError(loc, key, msg);
}

template <class F>
auto guarded(const Config& cfg, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const binding::BindingError& e) {
    fail_at(cfg, field_key(cfg, e.field), e.what());
  } catch (const container::PyxisError& e) {
    std::string key = e.field.substr(0, e.field.find('['));
    if (e.field != key && cfg.given(key)) {  // "container.mounts[2]": point at that list item
      size_t idx = std::stoul(e.field.substr(key.size() + 1));
      throw ConfigError(cfg.item_loc(key, idx), e.field, e.what());
    }
    fail_at(cfg, key, e.what());
  } catch (const slurm::LaunchError& e) {
    fail_at(cfg, e.field, e.what());
  }
}

// A path written in a YAML file is relative to that file; from the environment or --set, to the cwd.
std::string resolve_path(const Config& cfg, const std::string& key) {
  std::string v = cfg.str(key);
  if (v.empty() || fs::path(v).is_absolute()) return v;
  Loc loc = cfg.loc(key);
  if (loc.line == 0) return v;
  fs::path dir = fs::path(loc.file).parent_path();
  return (dir / v).lexically_normal().string();
}

void check_duration(const Config& cfg, const std::string& key) {
  static const std::regex re(R"(^(\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+(:\d{2}(:\d{2})?)?)$)");
  std::string v = cfg.str(key);
  if (!v.empty() && !std::regex_match(v, re))
    fail_at(cfg, key, "'" + v + "' is not a Slurm time (minutes, mm:ss, hh:mm:ss or d-hh[:mm[:ss]])");
}

binding::TopologySource topology_source(const Config& cfg) {
  binding::TopologySource src;
  if (cfg.given("topology.xml") && cfg.given("topology.synthetic"))
    fail_at(cfg, "topology.synthetic", "give either topology.xml or topology.synthetic, not both");
  if (cfg.given("topology.xml")) {
    src.kind = binding::TopologyKind::Xml;
    src.value = resolve_path(cfg, "topology.xml");
  } else if (cfg.given("topology.synthetic")) {
    src.kind = binding::TopologyKind::Synthetic;
    src.value = cfg.str("topology.synthetic");
  }
  for (long long n : cfg.integers("topology.gpu_numa_map")) src.gpu_numa_map.push_back(static_cast<int>(n));
  src.reserved_cpus = cfg.str("topology.reserved_cpus");
  src.allowed_cpus = cfg.str("topology.allowed_cpus");
  return src;
}

int count_numa_with_cpus(const binding::NodeTopology& t) {
  int n = 0;
  for (const auto& numa : t.numa) n += numa.cpus.empty() ? 0 : 1;
  return n;
}

binding::BindingPolicy binding_policy(const Config& cfg, binding::RankUnit unit) {
  binding::BindingPolicy p;
  binding::parse_cpu_policy(cfg.str("binding.cpu"), p.cpu);
  binding::parse_mem_policy(cfg.str("binding.mem"), p.mem);
  p.unit = unit;
  p.cpu_map = cfg.strings("binding.cpu_map");
  p.mem_map = cfg.strings("binding.mem_map");
  return p;
}

std::vector<container::Mount> parse_mounts(const Config& cfg) {
  std::vector<container::Mount> out;
  std::vector<std::string> items = cfg.strings("container.mounts");
  for (size_t i = 0; i < items.size(); ++i) {
    container::Mount m;
    m.field = "container.mounts[" + std::to_string(i) + "]";
    std::string s = items[i];
    size_t a = s.find(':');
    m.src = s.substr(0, a);
    if (a != std::string::npos) {
      size_t b = s.find(':', a + 1);
      m.dst = s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
      if (b != std::string::npos) m.flags = s.substr(b + 1);
    }
    out.push_back(m);
  }
  return out;
}

std::string cache_clear_script(bool sudo) {
  return std::string("sync && ") + (sudo ? "sudo -n " : "") + "/sbin/sysctl vm.drop_caches=3";
}

std::string absolute(const std::string& p) { return p.empty() ? p : fs::absolute(p).lexically_normal().string(); }

}  // namespace

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::string host_tool(const std::string& bin_dir, const std::string& name) {
  if (!bin_dir.empty()) return bin_dir + "/" + name;
  // Next to this executable; in a build tree a binary may sit in build/ or build/bin/ (see the CMakeLists).
  fs::path dir = executable_dir();
  std::error_code ec;
  for (const fs::path& cand : {dir / name, dir / "bin" / name, dir.parent_path() / name}) {
    if (cand.parent_path() == dir.parent_path() && dir.filename() != "bin") continue;
    if (fs::exists(cand, ec) && !fs::is_directory(cand, ec)) return cand.string();
  }
  return (dir / name).string();
}

Plan build_plan(const Config& cfg, const BuildOptions& opts) {
  Plan plan;
  plan.system_file = cfg.file();
  std::string stem = fs::path(cfg.file()).stem().string();
  plan.config_name = stem;
  if (!cfg.str("system.config_name").empty()) plan.config_name = cfg.str("system.config_name");
  else if (auto n = parse_mlperf_name(cfg.file()); n && !cfg.str("system.name").empty())
    plan.config_name = cfg.str("system.name") + stem.substr(n->system.size());  // DGXA100_1x8x56x1
  plan.system_name = cfg.str("system.name").empty() ? plan.config_name : cfg.str("system.name");
  plan.launcher = cfg.str("launcher.type");
  plan.num_nodes = static_cast<int>(cfg.integer("nodes.count"));

  // Topology and the local ranks of one node (all nodes of a job are alike).
  binding::NodeTopology topo = guarded(cfg, [&] { return binding::load_topology(topology_source(cfg)); });
  const int found_gpus = static_cast<int>(topo.gpus.size());
  int gpus = cfg.is_auto("nodes.gpus_per_node") ? found_gpus : static_cast<int>(cfg.integer("nodes.gpus_per_node"));
  if (gpus > found_gpus)
    fail_at(cfg, "nodes.gpus_per_node", "is " + std::to_string(gpus) + " but " + topo.source + " has " +
                                            std::to_string(found_gpus) + " GPU(s)");
  std::string unit_name = cfg.str("binding.unit");
  if (unit_name == "auto") unit_name = gpus > 0 ? "gpu" : "socket";
  binding::RankUnit unit{};
  binding::parse_rank_unit(unit_name, unit);
  if (unit == binding::RankUnit::Gpu && gpus == 0)
    fail_at(cfg, "nodes.gpus_per_node", "0 GPUs per node with binding.unit gpu; a CPU-only node needs binding.unit socket or numa");
  int rpn = static_cast<int>(cfg.integer("nodes.ranks_per_node"));
  if (rpn == 0) {
    rpn = unit == binding::RankUnit::Gpu ? gpus : unit == binding::RankUnit::Socket ? topo.packages : count_numa_with_cpus(topo);
  } else if (unit == binding::RankUnit::Gpu && rpn > gpus) {
    fail_at(cfg, "nodes.ranks_per_node", std::to_string(rpn) + " ranks per node but only " + std::to_string(gpus) + " GPU(s) per node");
  }
  std::vector<binding::RankBinding> local = guarded(cfg, [&] { return binding::plan_node(topo, binding_policy(cfg, unit), rpn); });
  plan.ranks_per_node = rpn;
  plan.world_size = plan.num_nodes * rpn;

  // Launcher specifics: host names and the rendezvous address.
  std::vector<std::string> hosts;
  if (plan.launcher == "mpirun") hosts = cfg.strings("launcher.mpirun.hosts");
  std::string master_addr;
  if (plan.launcher == "local") {
    if (plan.num_nodes != 1) fail_at(cfg, "nodes.count", "the local launcher runs on one node, not " + std::to_string(plan.num_nodes));
    master_addr = "127.0.0.1";
  } else if (plan.launcher == "mpirun") {
    if (cfg.str("launcher.mpirun.hostfile").empty()) {
      if (static_cast<int>(hosts.size()) != plan.num_nodes)
        fail_at(cfg, hosts.empty() ? "launcher.type" : "launcher.mpirun.hosts",
                "mpirun needs launcher.mpirun.hosts with one host per node (" + std::to_string(plan.num_nodes) +
                    ") or launcher.mpirun.hostfile; got " + std::to_string(hosts.size()) + " host(s)");
      master_addr = hosts.front();
    }
  } else if (auto it = opts.env.find("SLURM_JOB_NODELIST"); it != opts.env.end() && !it->second.empty()) {
    // Inside an allocation: the real node names; rank 0 runs on the first (run.sub's MLPERF_SLURM_FIRSTNODE).
    auto alloc = slurm::expand_hostlist(it->second);
    if (!alloc) fail_at(cfg, "nodes.count", "cannot read SLURM_JOB_NODELIST='" + it->second + "'");
    if (static_cast<int>(alloc->size()) < plan.num_nodes)
      fail_at(cfg, "nodes.count", std::to_string(plan.num_nodes) + " nodes but the Slurm allocation has " +
                                      std::to_string(alloc->size()) + " (" + it->second + ")");
    hosts.assign(alloc->begin(), alloc->begin() + plan.num_nodes);
    master_addr = hosts.front();
  }
  if (auto it = opts.env.find("MLPERF_SLURM_FIRSTNODE"); plan.launcher == "srun" && it != opts.env.end() && !it->second.empty())
    master_addr = it->second;
  if (!cfg.str("launcher.master_addr").empty()) master_addr = cfg.str("launcher.master_addr");
  const std::string port = std::to_string(cfg.integer("launcher.master_port"));

  plan.nodes.resize(static_cast<size_t>(plan.num_nodes));
  for (int n = 0; n < plan.num_nodes; ++n) {
    NodePlan& node = plan.nodes[static_cast<size_t>(n)];
    node.hostname = plan.launcher == "local"  ? "localhost"
                    : n < static_cast<int>(hosts.size()) ? hosts[static_cast<size_t>(n)]
                                                         : (plan.launcher == "srun" ? "slurm-node-" : "host-") + std::to_string(n);
    node.topology = topo;
    node.ranks.reserve(local.size());
    for (const binding::RankBinding& b : local) {
      RankPlan r;
      r.node_index = n;
      r.local_rank = b.local_rank;
      r.global_rank = n * rpn + b.local_rank;
      r.binding = b;
      r.env = {{"RANK", std::to_string(r.global_rank)},
               {"WORLD_SIZE", std::to_string(plan.world_size)},
               {"LOCAL_RANK", std::to_string(r.local_rank)},
               {"LOCAL_WORLD_SIZE", std::to_string(rpn)},
               {"NODE_RANK", std::to_string(n)},
               {"MASTER_PORT", port}};
      if (!master_addr.empty()) r.env["MASTER_ADDR"] = master_addr;
      node.ranks.push_back(std::move(r));
    }
  }
  for (const auto& [k, v] : cfg.string_map("env")) plan.env[k] = v;

  // Experiment settings.
  ExperimentPlan& ex = plan.experiment;
  ex.nexp = static_cast<int>(cfg.integer("experiment.nexp"));
  std::string cc = cfg.str("experiment.cache_clear");
  ex.cache_clear = cc == "required" ? CachePolicy::Required : cc == "off" ? CachePolicy::Off : CachePolicy::BestEffort;
  ex.cache_clear_sudo = cfg.flag("experiment.cache_clear_sudo");
  ex.seed_policy = cfg.str("experiment.seed_policy");
  try {
    ex.seeds = resolve_seeds(ex.seed_policy, ex.nexp, opts.random_seed);
  } catch (const std::invalid_argument& e) {
    fail_at(cfg, "experiment.seed_policy", e.what());
  }
  if (cfg.integer("benchmark.eval_interval_samples") == 0)
    fail_at(cfg, "benchmark.eval_interval_samples", "must be > 0, or -1 for the MLPerf formula; got 0");
  check_duration(cfg, "experiment.walltime");
  check_duration(cfg, "launcher.srun.time_per_run");
  ex.walltime = cfg.str("experiment.walltime");
  ex.output_dir = cfg.str("experiment.output_dir");
  if (ex.output_dir.empty()) fail_at(cfg, "experiment.output_dir", "must not be empty");
  ex.ruleset = cfg.str("experiment.ruleset");
  ex.division = cfg.str("experiment.division");
  if (ex.division == "closed" && ex.seed_policy.rfind("fixed:", 0) == 0 && ex.nexp > 1)
    plan.warnings.push_back("experiment.seed_policy " + ex.seed_policy +
                            " gives every run the same seed; the closed-division seed checker rejects that");

  // Data: given paths, or synthetic data made once by `bert-data synth`.
  const bool in_container = !cfg.str("container.image").empty();
  if (in_container && plan.launcher != "srun")
    fail_at(cfg, "container.image", "containers are started through pyxis, which needs launcher.type srun (got " + plan.launcher + ")");
  auto tool = [&](const std::string& name) {
    return in_container ? cfg.str("container.bin_dir") + "/" + name : host_tool(opts.bin_dir, name);
  };
  std::string train_dir = cfg.str("benchmark.data.train_dir");
  std::string eval_dir = cfg.str("benchmark.data.eval_dir");
  std::string checkpoint = cfg.str("benchmark.data.checkpoint");
  bool synthetic = false;
  for (const std::string& k : schema_children("benchmark.synthetic")) synthetic = synthetic || cfg.given("benchmark.synthetic." + k);
  if (synthetic) {
    if (in_container) fail_at(cfg, "benchmark.synthetic.dir", "synthetic data is made on the host; not with a container");
    std::string dir = cfg.str("benchmark.synthetic.dir").empty() ? ex.output_dir + "/data" : cfg.str("benchmark.synthetic.dir");
    if (cfg.str("benchmark.synthetic.format") != cfg.str("benchmark.data.format"))
      fail_at(cfg, "benchmark.synthetic.format", "is " + cfg.str("benchmark.synthetic.format") + " but benchmark.data.format is " +
                                                     cfg.str("benchmark.data.format"));
    Command synth;
    synth.argv = {host_tool(opts.bin_dir, "bert-data"), "synth", "--out", dir, "--format", cfg.str("benchmark.synthetic.format"),
                  "--shards", cfg.str("benchmark.synthetic.shards"), "--samples-per-shard",
                  cfg.str("benchmark.synthetic.samples_per_shard"), "--eval-samples", cfg.str("benchmark.synthetic.eval_samples"),
                  "--vocab", cfg.str("benchmark.vocab_size"), "--seq-len", cfg.str("benchmark.max_seq_length"), "--max-pred",
                  cfg.str("benchmark.max_predictions_per_seq"), "--seed", cfg.str("benchmark.synthetic.seed")};
    for (const char* k : {"topics", "content_tokens"}) {
      std::string key = std::string("benchmark.synthetic.") + k;
      if (cfg.integer(key) == 0) continue;
      std::string flag = std::string("--") + k;
      std::replace(flag.begin(), flag.end(), '_', '-');
      synth.argv.insert(synth.argv.end(), {flag, cfg.str(key)});
    }
    synth.creates = dir;
    plan.setup.push_back(std::move(synth));
    if (train_dir.empty()) train_dir = dir + "/train";
    if (eval_dir.empty()) eval_dir = dir + "/eval";
  }
  if (train_dir.empty()) fail_at(cfg, "benchmark.data.train_dir", "no training data: set benchmark.data.train_dir (or DATADIR) or benchmark.synthetic");
  if (eval_dir.empty()) fail_at(cfg, "benchmark.data.eval_dir", "no eval data: set benchmark.data.eval_dir (or EVALDIR)");

  // Where the executor puts the plan and the trainer config, as the ranks see them.
  const std::string out_seen = in_container ? kResultsMount : ex.output_dir;
  plan.plan_file = ex.output_dir + "/plan.json";
  plan.run_config_file = ex.output_dir + "/run.yaml";

  // Launcher argv and container flags.
  slurm::SrunOptions srun;
  srun.mpi = cfg.str("launcher.srun.mpi");
  srun.nodes = plan.num_nodes;
  srun.tasks_per_node = rpn;
  srun.gres_gpus = cfg.flag("launcher.srun.gres_every_step") ? gpus : 0;
  srun.label = cfg.flag("launcher.srun.label");
  srun.kill_on_bad_exit = cfg.flag("launcher.srun.kill_on_bad_exit");
  srun.time = cfg.str("launcher.srun.time_per_run");
  srun.extra_flags = cfg.strings("launcher.srun.extra_flags");
  slurm::MpirunOptions mpirun;
  mpirun.program = cfg.str("launcher.mpirun.program");
  mpirun.hosts = hosts;
  mpirun.hostfile = resolve_path(cfg, "launcher.mpirun.hostfile");
  mpirun.nodes = plan.num_nodes;
  mpirun.tasks_per_node = rpn;
  mpirun.env = plan.env;
  if (!master_addr.empty()) mpirun.env["MASTER_ADDR"] = master_addr;
  mpirun.env["MASTER_PORT"] = port;
  mpirun.extra_flags = cfg.strings("launcher.mpirun.extra_flags");

  container::PyxisOptions pyxis;
  if (in_container) {
    pyxis.image = cfg.str("container.image");
    pyxis.name = cfg.str("container.name");
    if (auto it = opts.env.find("SLURM_JOB_ID"); it != opts.env.end() && !it->second.empty()) pyxis.name += "_" + it->second;
    auto add = [&](const std::string& src, const char* dst, const char* field) {
      pyxis.mounts.push_back({absolute(src), dst, "", field});
    };
    add(train_dir, kTrainMount, "benchmark.data.train_dir");
    add(eval_dir, kEvalMount, "benchmark.data.eval_dir");
    if (!checkpoint.empty()) add(fs::path(checkpoint).parent_path().string(), kCheckpointMount, "benchmark.data.checkpoint");
    add(ex.output_dir, kResultsMount, "experiment.output_dir");
    if (cfg.flag("container.mount_infiniband")) pyxis.mounts.push_back({"/dev/infiniband", "/dev/infiniband", "", "container.mount_infiniband"});
    for (container::Mount& m : parse_mounts(cfg)) pyxis.mounts.push_back(m);
    pyxis.workdir = cfg.str("container.workdir");
    pyxis.env = cfg.strings("container.env");
    pyxis.mount_home = cfg.flag("container.mount_home");
    pyxis.remap_root = cfg.flag("container.remap_root");
    pyxis.writable = cfg.flag("container.writable");
    guarded(cfg, [&] { container::validate(pyxis); return 0; });
  }

  std::vector<std::string> per_node, step;
  if (plan.launcher == "srun") {
    per_node = guarded(cfg, [&] { return slurm::srun_per_node(srun); });
    step = guarded(cfg, [&] { return slurm::srun_step(srun); });
    if (in_container) {
      Command import;
      import.argv = per_node;
      for (const std::string& f : container::import_flags(pyxis)) import.argv.push_back(f);
      import.argv.push_back("true");
      plan.setup.insert(plan.setup.begin(), std::move(import));
      for (const std::string& f : container::run_flags(pyxis)) step.push_back(f);
    }
  } else if (plan.launcher == "mpirun") {
    per_node = guarded(cfg, [&] { return slurm::mpirun_per_node(mpirun); });
    step = guarded(cfg, [&] { return slurm::mpirun_step(mpirun); });
  }

  if (ex.cache_clear != CachePolicy::Off) {
    plan.cache_clear.argv = per_node;
    for (const char* w : {"sh", "-c"}) plan.cache_clear.argv.push_back(w);
    plan.cache_clear.argv.push_back(cache_clear_script(ex.cache_clear_sudo));
  }

  plan.launch.argv = step;
  for (const std::string& w : {tool("bind"), std::string("--plan"), out_seen + "/plan.json", std::string("--"), tool("trainer"),
                               std::string("--config"), out_seen + "/run.yaml"})
    plan.launch.argv.push_back(w);
  if (plan.launcher == "srun") plan.launch.env = plan.env;  // srun exports the caller's environment

  // Trainer config, systems JSON, warnings.
  TrainerInputs in;
  in.train_dir = in_container ? kTrainMount : train_dir;
  in.eval_file = in_container ? kEvalMount : eval_dir;
  in.checkpoint = checkpoint.empty() ? "" : in_container ? std::string(kCheckpointMount) + "/" + fs::path(checkpoint).filename().string() : checkpoint;
  in.rendezvous_dir = plan.launcher == "local" ? ex.output_dir + "/rendezvous" : "";
  std::string backend = cfg.str("benchmark.backend");
  in.backend = backend == "auto" ? (unit == binding::RankUnit::Gpu ? "cuda" : "cpu") : backend;
  if (in.backend == "cuda" && unit != binding::RankUnit::Gpu)
    fail_at(cfg, "benchmark.backend", "cuda needs GPU ranks (binding.unit gpu)");
  plan.trainer_config = make_trainer_config(cfg, plan, in);
  plan.system_json = make_system_json(cfg, plan);

  NameFacts facts{plan.num_nodes, rpn, static_cast<int>(cfg.integer("benchmark.batch_size")),
                  static_cast<int>(cfg.integer("benchmark.gradient_accumulation_steps")),
                  cfg.str("benchmark.data.format") == "packed"};
  for (std::string& w : check_mlperf_name(cfg.file(), facts)) plan.warnings.push_back(std::move(w));
  if (plan.num_nodes > 1 && topo.this_system)
    plan.warnings.push_back("topology is read live on this host; the plan assumes every " + plan.launcher +
                            " node looks the same (give topology.xml to pin it)");
  return plan;
}

}  // namespace bert::harness
