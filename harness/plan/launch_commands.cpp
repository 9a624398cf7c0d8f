#include "harness/plan/launch_commands.h"

#include <algorithm>
#include <filesystem>

#include "harness/plan/external_trainer.h"
#include "harness/plan/host_tool.h"
#include "harness/plan/plan_errors.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {
using detail::guarded;

std::vector<container::Mount> extra_mounts(const Config& cfg) {
  std::vector<container::Mount> out;
  std::vector<std::string> items = cfg.strings("container.mounts");
  for (size_t i = 0; i < items.size(); ++i) {  // SRC[:DST[:FLAGS]]
    container::Mount m;
    m.field = "container.mounts[" + std::to_string(i) + "]";
    const std::string& s = items[i];
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

std::string absolute(const std::string& p) { return p.empty() ? p : fs::absolute(p).lexically_normal().string(); }

std::string trainer_workdir(const Config& cfg, const TrainerProfile& prof) {
  return cfg.given("trainer.workdir") ? cfg.str("trainer.workdir") : prof.workdir;
}

// The paths as the ranks see them: under the profile's mounts in a container, else the host's.
RankPaths rank_paths(const Plan& plan, const LaunchContext& ctx, const TrainerProfile& prof, bool in_container) {
  const std::string ckpt_dir = ctx.data.checkpoint.empty() ? "" : fs::path(ctx.data.checkpoint).parent_path().string();
  if (!in_container)
    return {absolute(ctx.data.train_dir), absolute(ctx.data.eval_dir),
            absolute(prof.checkpoint_file.empty() ? ctx.data.checkpoint : ckpt_dir), absolute(plan.experiment.output_dir)};
  std::string ckpt = ctx.data.checkpoint.empty() ? ""
                     : prof.checkpoint_file.empty() ? prof.checkpoint.mount + "/" + fs::path(ctx.data.checkpoint).filename().string()
                                                    : prof.checkpoint.mount;
  return {prof.train.mount, prof.eval.mount, ckpt, prof.results.mount};
}

container::ContainerSpec container_spec(const Plan& plan, const Config& cfg, const LaunchContext& ctx, const TrainerProfile& prof) {
  container::ContainerSpec o;
  o.image = cfg.str("container.image");
  o.name = cfg.str("container.name");
  if (auto it = ctx.process_env.find("SLURM_JOB_ID"); it != ctx.process_env.end() && !it->second.empty()) o.name += "_" + it->second;
  // The ranks only read the data; they write through the results mount.
  auto add = [&](const std::string& src, const std::string& dst, const char* flags, const char* field) {
    o.mounts.push_back({absolute(src), dst, flags, field});
  };
  add(ctx.data.train_dir, prof.train.mount, "ro", "benchmark.data.train_dir");
  add(ctx.data.eval_dir, prof.eval.mount, "ro", "benchmark.data.eval_dir");
  if (!ctx.data.checkpoint.empty())
    add(fs::path(ctx.data.checkpoint).parent_path().string(), prof.checkpoint.mount, "ro", "benchmark.data.checkpoint");
  add(plan.experiment.output_dir, prof.results.mount, "", "experiment.output_dir");
  if (cfg.flag("container.mount_infiniband")) o.mounts.push_back({"/dev/infiniband", "/dev/infiniband", "", "container.mount_infiniband"});
  for (container::Mount& m : extra_mounts(cfg)) o.mounts.push_back(std::move(m));
  o.workdir = plan.trainer_run.kind == TrainerKind::External && !trainer_workdir(cfg, prof).empty() ? trainer_workdir(cfg, prof)
                                                                                      : cfg.str("container.workdir");
  o.env = cfg.strings("container.env");
  o.mount_home = cfg.flag("container.mount_home");
  o.remap_root = cfg.flag("container.remap_root");
  o.writable = cfg.flag("container.writable");
  o.gpus = ctx.job.gpus_per_node > 0;
  return o;
}

// Each node says whether its caches were cleared (the executor reads it per node from the tagged output);
// the step fails when any node did not.
std::string cache_clear_script(bool sudo) {
  return std::string("if sync && ") + (sudo ? "sudo -n " : "") +
         "/sbin/sysctl vm.drop_caches=3; then echo cache_clear_ok; else echo cache_clear_failed; exit 1; fi";
}

// What a runtime that applies the binding needs of one rank: its binding and the names of the
// environment the executor gives it (job-wide and its own).
container::RankResources rank_resources(const Plan& plan, const RankPlan& r) {
  container::RankResources res{r.binding.cpus, r.binding.mems, r.binding.gpu, {}};
  for (const auto& [k, v] : plan.env) res.env.push_back(k);
  for (const auto& [k, v] : r.env)
    if (!plan.env.contains(k)) res.env.push_back(k);
  return res;
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void add_commands(Plan& plan, const Config& cfg, const LaunchContext& ctx_in) {
  const Launcher& launcher = find_launcher(plan.launcher);
  LaunchContext ctx = ctx_in;
  plan.trainer_run = make_trainer_plan(cfg);
  const bool external = plan.trainer_run.kind == TrainerKind::External;
  const TrainerProfile& prof = trainer_profile(cfg);
  plan.binding.apply = setting(cfg, "binding.apply", kBindingApplyNames);
  const container::Runtime* runtime = nullptr;
  if (!cfg.str("container.image").empty()) {
    runtime = container::find_runtime(cfg.str("container.runtime"));
    if (!launcher.can_start(*runtime))
      cfg.fail(cfg.given("container.runtime") ? "container.runtime" : "container.image",
               std::string("containers are started through ") + runtime->name() + ", which needs launcher.type " +
                                        (runtime->binds_ranks() ? "local (it binds each rank the harness starts)" : runtime->launcher()) +
                                        " (got " + plan.launcher + ")");
    plan.container = {runtime->name(), cfg.str("container.image")};
  }
  auto tool = [&](const std::string& name) {
    return runtime ? cfg.str("container.bin_dir") + "/" + name : host_tool(ctx.bin_dir, name);
  };
  // The executor writes these two files; the ranks see them under the results mount inside a container.
  const std::string out_seen = runtime ? prof.results.mount : plan.experiment.output_dir;
  plan.plan_file = plan.experiment.output_dir + "/plan.json";
  plan.run_config_file = plan.experiment.output_dir + "/run.yaml";

  if (plan.binding.apply == BindingApply::Trainer && !cfg.str("topology.reserved_cpus").empty())
    cfg.fail("binding.apply", "trainer leaves the binding to the implementation (NVIDIA's bindpcie), which reads the node itself "
                              "and knows nothing of topology.reserved_cpus " + cfg.str("topology.reserved_cpus") +
                              ": its ranks would take those CPUs or fail on them (Inventec's 'cpu argument out of range'). "
                              "Write binding.apply: launcher (srun --cpu-bind masks from this plan, without the reserved CPUs; "
                              "run_and_time.sh must then not bind again), or clear topology.reserved_cpus if nothing is "
                              "reserved on the nodes");
  if (plan.binding.apply == BindingApply::Runtime && !(runtime && runtime->binds_ranks()))
    cfg.fail("binding.apply", "runtime: only a container runtime that binds each rank applies the binding "
                              "(container.runtime podman or docker, with container.image set)");
  if (plan.binding.apply == BindingApply::Bind && external && runtime)
    cfg.fail("binding.apply", "bind needs our bind tool inside the container; an external trainer's image has none "
                              "(use launcher: the launcher's own binding, or trainer: the implementation binds itself)");
  if (plan.binding.apply == BindingApply::Launcher && !plan.nodes.empty())
    for (const RankPlan& r : plan.nodes.front().ranks) ctx.job.bindings.push_back({r.binding.cpus, r.binding.mems});
  ctx.job.files_dir = plan.experiment.output_dir;
  if (external) {
    plan.trainer.env = external_env(cfg, prof, rank_paths(plan, ctx, prof, runtime != nullptr),
                                    {{"nodes.gpus_per_node", std::to_string(ctx.job.gpus_per_node)},
                                     {"system.config_name", plan.config_name}},
                                    plan.experiment.nexp);
    // The rendezvous is the launch's: said once, in launcher.master_*, never also in trainer.env.
    for (const auto& [name, value] : cfg.string_map("trainer.env")) {
      const Loc at = cfg.item_loc("trainer.env", name);
      if (name == prof.master_port_env)
        throw UserError(at, "trainer.env." + name, value + ", but the launch gives every rank " + name + "=" + ctx.job.master_port +
                                                       " (launcher.master_port): write launcher.master_port: " + value + " instead");
      if (std::find(prof.master_addr_env.begin(), prof.master_addr_env.end(), name) != prof.master_addr_env.end())
        throw UserError(at, "trainer.env." + name, value + ", but the launch gives every rank the job's first node (or "
                                                       "launcher.master_addr) as its rendezvous host: write launcher.master_addr: " +
                                                       value + " to pin one");
    }
    if (!ctx.job.hosts.master_addr.empty())
      for (const std::string& name : prof.master_addr_env) plan.trainer.env[name] = ctx.job.hosts.master_addr;
    if (!prof.master_port_env.empty()) plan.trainer.env[prof.master_port_env] = ctx.job.master_port;
    for (const auto& [k, v] : plan.trainer.env) ctx.job.forward.push_back(k);
    ctx.job.forward.push_back(plan.trainer_run.seed_env);
    ctx.job.forward.push_back(plan.trainer_run.experiment_env);
  }
  const LaunchLines lines = guarded(cfg, [&] { return launcher.lines(cfg, ctx.job); });
  plan.files = lines.files;
  for (const std::string& n : lines.notes) plan.warnings.push_back(n);
  if (!lines.rank_prefix.empty())
    for (NodePlan& node : plan.nodes)
      for (RankPlan& r : node.ranks)
        if (size_t(r.local_rank) < lines.rank_prefix.size()) r.command_prefix = lines.rank_prefix[size_t(r.local_rank)];
  plan.mpi = lines.mpi;
  plan.per_node.argv = lines.per_node;
  // A launcher that starts the ranks gets the job-wide env: srun exports it to the tasks; mpirun reads
  // its own OMPI_* settings from it (e.g. OMPI_ALLOW_RUN_AS_ROOT) and forwards the rest with -x.
  if (!launcher.starts_each_rank()) plan.per_node.env = plan.env;

  std::vector<std::string> step = lines.step, rank_prefix;
  container::ContainerSpec spec;
  if (runtime) {
    spec = container_spec(plan, cfg, ctx, prof);
    guarded(cfg, [&] {
      runtime->validate(spec);
      return 0;
    });
    if (std::vector<std::string> words = runtime->setup_words(spec); !words.empty()) {
      Command import;
      import.argv = joined(joined(plan.per_node.argv, words), {"true"});
      plan.setup.insert(plan.setup.begin(), std::move(import));
    }
    step = joined(step, runtime->launcher_flags(spec));
    if (!runtime->binds_ranks()) rank_prefix = guarded(cfg, [&] { return runtime->command_prefix(spec, nullptr); });
  }

  if (plan.experiment.cache_clear != CachePolicy::Off)
    plan.cache_clear.argv = joined(joined(plan.per_node.argv, launcher.per_node_tag_flags()),
                                   {"sh", "-c", cache_clear_script(plan.experiment.cache_clear_sudo)});
  plan.cache_clear.env = plan.per_node.env;
  std::vector<std::string> program = {tool(ctx.trainer), "--config", out_seen + "/run.yaml"};
  if (external) {
    program = cfg.strings("trainer.argv").empty() ? prof.argv : cfg.strings("trainer.argv");
    if (!runtime && cfg.given("trainer.workdir")) plan.launch.cwd = cfg.path("trainer.workdir");
  }
  plan.trainer_program = program.front();
  plan.trainer.argv = plan.binding.apply == BindingApply::Bind ? joined({tool("bind"), "--plan", out_seen + "/plan.json", "--"}, program) : program;
  plan.launch.argv = joined(joined(step, rank_prefix), plan.trainer.argv);
  plan.launch.env = plan.per_node.env;
  for (const auto& [k, v] : plan.trainer.env) plan.launch.env[k] = v;
  // A runtime that binds each rank: its words go after the rank's own prefix (the executor starts
  // command_prefix + launch for every rank).
  if (runtime && runtime->binds_ranks())
    for (NodePlan& node : plan.nodes)
      for (RankPlan& r : node.ranks) {
        const container::RankResources res = rank_resources(plan, r);
        r.command_prefix = joined(r.command_prefix, guarded(cfg, [&] { return runtime->command_prefix(spec, &res); }));
      }
}

}  // namespace bert::harness
