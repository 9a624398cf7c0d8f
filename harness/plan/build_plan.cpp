#include "harness/plan/build_plan.h"
#include "harness/plan/power_plan.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include <fmt/format.h>

#include "binding/binding_json.h"
#include "formats/shard_format.h"
#include "harness/config/naming.h"
#include "harness/config/reference_figures.h"
#include "harness/plan/closed_division.h"
#include "harness/launch/launcher.h"
#include "harness/plan/data_setup.h"
#include "harness/plan/gpu_fp8.h"
#include "harness/plan/host_tool.h"
#include "harness/plan/launch_commands.h"
#include "harness/plan/node_layout.h"
#include "harness/plan/plan_errors.h"
#include "harness/plan/seeds.h"
#include "harness/plan/system_json.h"
#include "harness/plan/trainer_config.h"
#include "harness/plan/walltime.h"
#include "results/rcp.h"
#include "results/rules.h"
#include "trainer/backend_status.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {
using detail::guarded;

void check_duration(const Config& cfg, const std::string& key) {
  try {
    parse_walltime_seconds(cfg.str(key));
  } catch (const std::invalid_argument& e) {
    cfg.fail(key, e.what());
  }
}

void set_identity(Plan& plan, const Config& cfg) {
  plan.system_file = cfg.file();
  std::string stem = fs::path(cfg.file()).stem().string();
  plan.config_name = stem;
  if (!cfg.str("system.config_name").empty()) plan.config_name = cfg.str("system.config_name");
  else if (auto n = parse_mlperf_name(cfg.file()); n && !cfg.str("system.name").empty())
    plan.config_name = cfg.str("system.name") + stem.substr(n->system.size());  // DGXA100_1x8x56x1
  plan.system_name = cfg.str("system.name").empty() ? plan.config_name : cfg.str("system.name");
  // It names a folder (results/<name>/) and a file (systems/<name>.json): one path component.
  if (plan.system_name.find_first_of("/\\") != std::string::npos || plan.system_name == "." || plan.system_name == "..")
    cfg.fail(cfg.str("system.name").empty() ? "system.config_name" : "system.name",
             "'" + plan.system_name + "' names results/<name>/ and systems/<name>.json: no '/', '\\', '.' or '..'");
  plan.launcher = cfg.str("launcher.type");
  plan.num_nodes = static_cast<int>(cfg.integer("nodes.count"));
}

// The nodes' names (placeholders where the launcher cannot know them yet) and rank environment.
void add_nodes(Plan& plan, const NodeLayout& layout, const Launcher& launcher, const JobShape& job) {
  const int rpn = plan.ranks_per_node;
  plan.nodes.resize(static_cast<size_t>(plan.num_nodes));
  for (int n = 0; n < plan.num_nodes; ++n) {
    NodePlan& node = plan.nodes[static_cast<size_t>(n)];
    node.hostname = n < static_cast<int>(job.hosts.names.size()) ? job.hosts.names[static_cast<size_t>(n)]
                                                                : launcher.placeholder_host(n);
    node.topology = layout.topology;
    node.ranks.reserve(layout.ranks.size());
    for (const binding::RankBinding& b : layout.ranks) {
      RankPlan r;
      r.node_index = n;
      r.local_rank = b.local_rank;
      r.global_rank = n * rpn + b.local_rank;
      r.binding = b;
      r.env = {{"RANK", std::to_string(r.global_rank)},   {"WORLD_SIZE", std::to_string(plan.world_size)},
               {"LOCAL_RANK", std::to_string(r.local_rank)}, {"LOCAL_WORLD_SIZE", std::to_string(rpn)},
               {"NODE_RANK", std::to_string(n)},             {"MASTER_PORT", job.master_port}};
      if (!job.hosts.master_addr.empty()) r.env["MASTER_ADDR"] = job.hosts.master_addr;
      node.ranks.push_back(std::move(r));
    }
  }
}

// Each rank's NICs as its libraries read them (the launcher's variables); a variable the YAML's env:
// sets for the whole job is the user's choice and stays. Only `bind` (or a rank the executor starts)
// gives the ranks of one launcher step different environments; otherwise the NICs are only shown.
void add_nic_env(Plan& plan, const NodeLayout& layout, const Launcher& launcher, BindingApply apply) {
  for (std::string& w : binding::nic_warnings(layout.topology, layout.ranks)) plan.warnings.push_back(std::move(w));
  bool any = false;
  for (const auto& b : layout.ranks) any = any || !b.nics.empty();
  if (!any) return;
  if (apply != BindingApply::Bind && !launcher.starts_each_rank()) {
    std::string names;
    for (const NicVariable& v : launcher.nic_variables()) names += (names.empty() ? "" : ", ") + std::string(v.name);
    plan.warnings.push_back("binding.apply " + std::string(enum_name(apply, kBindingApplyNames)) + ": " + launcher.name() + " gives all ranks one environment, so " +
                            "the NICs below are not exported per rank (" + names +
                            "); the trainer picks its own (e.g. bindpcie --ib=single), or set them in env:");
    return;
  }
  for (NodePlan& node : plan.nodes)
    for (RankPlan& r : node.ranks)
      for (const auto& [k, v] : nic_env(launcher, r.binding.nics))
        if (!plan.env.contains(k)) r.env[k] = v;
}

// The per-experiment watchdog and the job's limit, one derived from the other (walltime.h).
void set_walltimes(ExperimentPlan& ex, const Config& cfg, std::vector<std::string>& warnings) {
  for (const char* key : {"experiment.run_walltime", "experiment.job_walltime"}) check_duration(cfg, key);
  try {
    Walltimes w = resolve_walltimes(cfg.str("experiment.run_walltime"), cfg.str("experiment.job_walltime"), ex.nexp);
    ex.run_walltime = w.run;
    ex.job_walltime = w.job;
    ex.walltime_derived = w.derived;
    if (!w.warning.empty()) warnings.push_back(w.warning);
  } catch (const std::invalid_argument& e) {
    cfg.fail("experiment.job_walltime", e.what());
  }
}

// A per-run limit below the shortest time the run can take (closed_division.h) kills every run: refused in
// the closed division (the set is for a result), a warning in the open one.
void check_run_walltime(Plan& plan, const Config& cfg, double gbs) {
  const double limit = parse_walltime_seconds(plan.experiment.run_walltime);
  if (limit <= 0) return;
  const RunTimeFloor floor = run_time_floor(cfg, gbs, plan.world_size);
  if (limit >= floor.seconds) return;
  const std::string key = plan.experiment.walltime_derived == "run" ? "experiment.job_walltime" : "experiment.run_walltime";
  const std::string from = plan.experiment.walltime_derived == "run"
                               ? fmt::format(" (derived: {})", walltime_rule(Walltimes{plan.experiment.run_walltime, plan.experiment.job_walltime, "run", ""},
                                                                            plan.experiment.nexp))
                               : "";
  const std::string msg = fmt::format("the per-run limit {}{} is shorter than any run can take: at least {:.1f} minutes, {}; "
                                      "every run would be killed. Give experiment.run_walltime (NVIDIA's WALLTIME_RUNANDTIME) "
                                      "for one run",
                                      plan.experiment.run_walltime, from, floor.seconds / 60, floor.why);
  if (plan.experiment.division == Division::Closed) cfg.fail(key, "closed division: " + msg);
  plan.warnings.push_back(msg);
}

void set_experiment(Plan& plan, const Config& cfg, const BuildOptions& opts) {
  ExperimentPlan& ex = plan.experiment;
  ex.nexp = static_cast<int>(cfg.integer("experiment.nexp"));
  ex.cache_clear = setting(cfg, "experiment.cache_clear", kCachePolicyNames);
  ex.cache_clear_sudo = cfg.flag("experiment.cache_clear_sudo");
  try {
    ex.seed_policy = parse_seed_policy(cfg.str("experiment.seed_policy"));
  } catch (const std::invalid_argument& e) {
    cfg.fail("experiment.seed_policy", e.what());
  }
  ex.seeds = resolve_seeds(ex.seed_policy, ex.nexp, opts.random_seed);
  if (cfg.integer("benchmark.eval_interval_samples") == 0)
    cfg.fail("benchmark.eval_interval_samples", "must be > 0, or -1 for the MLPerf formula; got 0");
  check_duration(cfg, "launcher.srun.time_per_run");
  set_walltimes(ex, cfg, plan.warnings);
  ex.output_dir = cfg.str("experiment.output_dir");
  if (ex.output_dir.empty()) cfg.fail("experiment.output_dir", "must not be empty");
  ex.ruleset = cfg.str("experiment.ruleset");
  if (!results::rules::has_ruleset(ex.ruleset)) {  // every run's log is checked against it
    std::string known;
    for (const std::string& r : results::rules::rulesets()) known += (known.empty() ? "" : ", ") + r;
    cfg.fail("experiment.ruleset", "no BERT rules for ruleset '" + ex.ruleset + "' (known: " + known +
                                       "; BERT is not accepted after 5.0.0)");
  }
  ex.division = setting(cfg, "experiment.division", kDivisionNames);
  if (ex.division == Division::Closed && ex.seed_policy.kind == SeedKind::Fixed && ex.nexp > 1)
    plan.warnings.push_back("experiment.seed_policy " + ex.seed_policy.word() +
                            " gives every run the same seed; the closed-division seed checker rejects that");
}

TrainerInputs trainer_inputs(const Plan& plan, const Config& cfg, const NodeLayout& layout, const DataPaths& data) {
  const bool in_container = !cfg.str("container.image").empty();
  TrainerInputs in;
  in.train_dir = in_container ? kTrainMount : data.train_dir;
  in.eval_file = in_container ? kEvalMount : data.eval_dir;
  in.checkpoint = data.checkpoint.empty() ? ""
                  : in_container ? std::string(kCheckpointMount) + "/" + fs::path(data.checkpoint).filename().string()
                                 : data.checkpoint;
  in.rendezvous_dir = plan.rendezvous_dir;
  if (in_container && !in.rendezvous_dir.empty())  // it lies under the output directory, the results mount
    in.rendezvous_dir = (fs::path(kResultsMount) / fs::path(plan.rendezvous_dir).lexically_relative(plan.experiment.output_dir)).string();
  const bool gpu_ranks = layout.unit == binding::RankUnit::Gpu;
  using trainer::Backend;
  if (cfg.is_auto("benchmark.backend")) in.backend = gpu_ranks ? Backend::Cuda : Backend::Cpu;
  else in.backend = setting(cfg, "benchmark.backend", trainer::kBackendNames);
  if (in.backend == Backend::Cuda && !gpu_ranks) cfg.fail("benchmark.backend", "cuda needs GPU ranks (binding.unit gpu)");
  const std::string backend = trainer::backend_name(in.backend);
  // Which backend computes in which precision is trainer/precision.h's table; what the machine must offer
  // (bf16 instructions, FP8 matrix units) the trainer checks where it runs, and the GPU model's FP8 units here.
  const std::string precision = cfg.str("benchmark.precision");
  in.precision = trainer::resolve_precision(
      cfg.is_auto("benchmark.precision") ? std::nullopt
                                         : std::optional(setting(cfg, "benchmark.precision", trainer::kPrecisionNames)),
      in.backend);
  if (const std::string problem = trainer::precision_problem(in.precision, in.backend); !problem.empty())
    cfg.fail("benchmark.precision", precision + " with the " + backend + " backend: " + problem);
  if (in.precision == trainer::Precision::fp8) {
    const GpuFp8 fp8 = gpu_fp8(cfg.str("system.accelerator_model_name"));
    if (!fp8.known || !fp8.has_fp8)
      cfg.fail("benchmark.precision", "fp8 needs GPUs with FP8 matrix units (compute capability 8.9 or later); " +
                                          fp8.why + "; use bf16");
  }
  // The CUDA trainer clips the allreduced gradients (its NCCL buckets overlap the backward pass, so the
  // local norm is not known before they start); RULES allow either order.
  in.clip_after_allreduce = in.backend == Backend::Cuda || cfg.flag("benchmark.clip_after_allreduce");
  if (in.backend == Backend::Cuda && cfg.given("benchmark.clip_after_allreduce") && !cfg.flag("benchmark.clip_after_allreduce"))
    cfg.fail("benchmark.clip_after_allreduce", "false with the cuda backend: the cuda trainer clips after the allreduce");
  return in;
}

// The last probe of this system, for the dry-run; one measured for another shape is named as such.
void read_probe(Plan& plan, double global_batch) {
  const std::string path = probe_file(plan.experiment.output_dir);
  try {
    plan.probe = load_probe(path);
  } catch (const std::exception& e) {
    plan.warnings.push_back(std::string(e.what()) + " (run harness probe again)");
    return;
  }
  if (!plan.probe) return;
  const ProbeProjection& p = *plan.probe;
  if (p.config_name != plan.config_name || p.world_size != plan.world_size || p.global_batch != global_batch) {
    plan.warnings.push_back(path + " was measured for " + p.config_name + " (" + std::to_string(p.world_size) +
                            " ranks, global batch " + fmt::format("{:g}", p.global_batch) +
                            "), not this plan: its projection is not shown; probe again");
    plan.probe.reset();  // another plan's numbers are never this one's projection
    return;
  }
  plan.probe_file = path;
}

// references.<figure>: the ones given, in the table's order; a tolerance alone refers to nothing.
void set_references(Plan& plan, const Config& cfg) {
  for (const ReferenceFigure& f : kReferenceFigures) {
    const std::string key = "references." + std::string(f.key);
    if (cfg.given(key + ".target"))
      plan.references.push_back({std::string(f.key), cfg.real(key + ".target"), cfg.real(key + ".tolerance")});
    else if (cfg.given(key + ".tolerance"))
      cfg.fail(key + ".tolerance", "a tolerance without a target: give " + key + ".target too");
  }
}

}  // namespace

Plan build_plan(const Config& cfg, const BuildOptions& opts) {
  Plan plan;
  plan.source = opts.source;
  set_identity(plan, cfg);
  const Launcher& launcher = guarded(cfg, [&]() -> const Launcher& { return find_launcher(plan.launcher); });
  for (const std::string& key : unused_launcher_keys(cfg, plan.launcher))
    plan.warnings.push_back(key + " (" + cfg.loc(key).str() + ") is ignored: launcher.type is " + plan.launcher);
  NodeLayout layout = plan_node_layout(cfg);
  plan.ranks_per_node = static_cast<int>(layout.ranks.size());
  plan.binding = {cfg.str("binding.cpu"), cfg.str("binding.mem"), binding::to_string(layout.unit), BindingApply::Bind,
                  cfg.str("binding.nic")};
  plan.excluded = opts.exclude;
  plan.sets = opts.sets;

  LaunchContext ctx;
  const NodeRequest req{plan.num_nodes, static_cast<int>(cfg.integer("nodes.min_count")), opts.exclude};
  ctx.job.hosts = launcher.find_hosts(cfg, opts.env, req);
  // Fewer nodes than asked: nodes.min_count allowed the set to go on without the excluded ones.
  if (!ctx.job.hosts.names.empty() && int(ctx.job.hosts.names.size()) < plan.num_nodes)
    plan.num_nodes = int(ctx.job.hosts.names.size());
  plan.world_size = plan.num_nodes * plan.ranks_per_node;
  ctx.job.nodes = plan.num_nodes;
  ctx.job.ranks_per_node = plan.ranks_per_node;
  ctx.job.gpus_per_node = layout.gpus;
  ctx.job.exclude = opts.exclude;
  plan.warnings.insert(plan.warnings.end(), ctx.job.hosts.warnings.begin(), ctx.job.hosts.warnings.end());
  if (!cfg.str("launcher.master_addr").empty()) {
    if (const std::string problem = host_name_problem(cfg.str("launcher.master_addr")); !problem.empty())
      cfg.fail("launcher.master_addr", problem);
    ctx.job.hosts.master_addr = cfg.str("launcher.master_addr");
  }
  ctx.job.master_port = std::to_string(cfg.integer("launcher.master_port"));
  add_nodes(plan, layout, launcher, ctx.job);
  // An assumed topology (harness import: a node no base describes) knows each node's GPUs, not which CPUs and
  // memory are near them: no rank gets a CPU or memory binding made up from it.
  plan.topology_assumed = cfg.flag("topology.assumed");
  if (plan.topology_assumed)
    for (NodePlan& n : plan.nodes)
      for (RankPlan& r : n.ranks) {
        r.binding.cpus.clear();
        r.binding.mems.clear();
        r.binding.numa_node = -1;
      }
  for (const auto& [k, v] : cfg.string_map("env")) plan.env[k] = v;
  ctx.job.env = plan.env;
  add_nic_env(plan, layout, launcher, setting(cfg, "binding.apply", kBindingApplyNames));
  set_experiment(plan, cfg, opts);
  plan.submit.argv = launcher.submit_command(ctx.job, plan.experiment.job_walltime, plan.system_file);
  plan.target_accuracy = cfg.real("benchmark.target_accuracy");
  set_references(plan, cfg);
  const double gbs = planned_global_batch(cfg, plan.world_size);
  read_probe(plan, gbs);
  if (plan.experiment.division == Division::Closed) {
    check_closed_division(cfg, gbs);
    RcpOutlook rcp = rcp_outlook(gbs, plan.experiment.ruleset);
    plan.rcp = rcp.text;
    if (!rcp.submittable) plan.warnings.push_back(rcp.text);
    if (plan.experiment.nexp < results::rcp::kSubmissionRuns)
      plan.warnings.push_back(fmt::format("closed division: experiment.nexp {} is below the {} runs a BERT result needs; this set "
                                          "cannot be submitted as it is (--resume with NEXP={} adds the runs it lacks)",
                                          plan.experiment.nexp, results::rcp::kSubmissionRuns, results::rcp::kSubmissionRuns));
  }
  check_run_walltime(plan, cfg, gbs);
  // Ranks the executor starts itself have no launcher to meet through: they meet in a directory.
  if (launcher.starts_each_rank()) plan.rendezvous_dir = plan.experiment.output_dir + "/rendezvous";

  if (cfg.flag("topology.compare")) plan.host_bind = host_tool(opts.bin_dir, "bind");
  if (plan.topology_assumed && !cfg.given("topology.xml") && !cfg.given("topology.synthetic"))
    cfg.fail("topology.assumed", "an assumed topology needs topology.synthetic (or topology.xml): what is assumed");
  ctx.bin_dir = opts.bin_dir;
  ctx.process_env = opts.env;
  ctx.data = resolve_data(cfg, plan, opts.bin_dir);
  // What every node must read before the first run (the preflight); synthetic data is made by a setup step.
  for (const auto& [key, path] : {std::pair<const char*, std::string>{"benchmark.data.train_dir", ctx.data.train_dir},
                                  {"benchmark.data.eval_dir", ctx.data.eval_dir}, {"benchmark.data.checkpoint", ctx.data.checkpoint}}) {
    bool made = false;
    for (const Command& c : plan.setup) made = made || (!c.creates.empty() && path.rfind(c.creates, 0) == 0);
    if (!path.empty() && !made) plan.data_paths[key] = path;
  }
  TrainerInputs inputs = trainer_inputs(plan, cfg, layout, ctx.data);
  ctx.trainer = inputs.backend == trainer::Backend::Cuda ? "trainer-cuda" : "trainer";  // trainer/CMakeLists.txt: two binaries
  add_commands(plan, cfg, ctx);
  add_power(plan, cfg, launcher, opts.bin_dir, !ctx.job.hosts.names.empty(), layout.gpus);
  inputs.power_window_s = plan.power.window_s;

  plan.trainer_config = make_trainer_config(cfg, plan, inputs);
  if (plan.trainer_run.kind == TrainerKind::External) {
    plan.trainer_status = "external trainer: not verified by this project (its own implementation)";
  } else {
    const trainer::BackendStatus status = trainer::backend_status(inputs.backend, inputs.precision);
    plan.trainer_status = std::string(trainer::backend_name(inputs.backend)) + " backend, " +
                          trainer::to_string(inputs.precision) + ": " +
                          (status.verified ? "verified: " : "NOT VERIFIED: ") + status.evidence;
  }
  plan.system_json = make_system_json(cfg, plan);

  NameFacts facts{plan.num_nodes, plan.ranks_per_node, static_cast<int>(cfg.integer("benchmark.batch_size")),
                  static_cast<int>(cfg.integer("benchmark.gradient_accumulation_steps")),
                  setting(cfg, "benchmark.data.format", data::kFormatNames) == data::Format::packed};
  const std::vector<std::string> by_file = check_mlperf_name(cfg.file(), facts);
  plan.warnings.insert(plan.warnings.end(), by_file.begin(), by_file.end());
  // The name the results carry (MLPerf's <system>_<nodes>x<gpus>x<batch>x<accum>) must say what runs; once
  // when the file name says the same.
  auto tail = [](const std::string& w) { return w.substr(w.find(" says ")); };
  if (cfg.given("system.config_name"))
    for (std::string& w : check_mlperf_name(cfg.str("system.config_name"), facts, "system.config_name"))
      if (std::none_of(by_file.begin(), by_file.end(), [&](const std::string& f) { return tail(f) == tail(w); }))
        plan.warnings.push_back(std::move(w));
  if (plan.num_nodes > 1 && layout.topology.this_system && !plan.topology_assumed)
    plan.warnings.push_back("topology is read live on this host; the plan assumes every " + plan.launcher +
                            " node looks the same (give topology.xml to pin it)");
  return plan;
}

}  // namespace bert::harness
