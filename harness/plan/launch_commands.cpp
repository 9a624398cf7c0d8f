#include "harness/plan/launch_commands.h"

#include <filesystem>

#include "container/pyxis.h"
#include "harness/plan/build_plan.h"
#include "harness/plan/plan_errors.h"
#include "slurm/launch_lines.h"

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

container::PyxisOptions pyxis_options(const Plan& plan, const Config& cfg, const LaunchContext& ctx) {
  container::PyxisOptions o;
  o.image = cfg.str("container.image");
  o.name = cfg.str("container.name");
  if (auto it = ctx.process_env.find("SLURM_JOB_ID"); it != ctx.process_env.end() && !it->second.empty()) o.name += "_" + it->second;
  auto add = [&](const std::string& src, const char* dst, const char* field) { o.mounts.push_back({absolute(src), dst, "", field}); };
  add(ctx.data.train_dir, kTrainMount, "benchmark.data.train_dir");
  add(ctx.data.eval_dir, kEvalMount, "benchmark.data.eval_dir");
  if (!ctx.data.checkpoint.empty())
    add(fs::path(ctx.data.checkpoint).parent_path().string(), kCheckpointMount, "benchmark.data.checkpoint");
  add(plan.experiment.output_dir, kResultsMount, "experiment.output_dir");
  if (cfg.flag("container.mount_infiniband")) o.mounts.push_back({"/dev/infiniband", "/dev/infiniband", "", "container.mount_infiniband"});
  for (container::Mount& m : extra_mounts(cfg)) o.mounts.push_back(std::move(m));
  o.workdir = cfg.str("container.workdir");
  o.env = cfg.strings("container.env");
  o.mount_home = cfg.flag("container.mount_home");
  o.remap_root = cfg.flag("container.remap_root");
  o.writable = cfg.flag("container.writable");
  guarded(cfg, [&] {
    container::validate(o);
    return 0;
  });
  return o;
}

slurm::SrunOptions srun_options(const Plan& plan, const Config& cfg, const LaunchContext& ctx) {
  slurm::SrunOptions o;
  o.mpi = cfg.str("launcher.srun.mpi");
  o.nodes = plan.num_nodes;
  o.tasks_per_node = plan.ranks_per_node;
  o.gres_gpus = cfg.flag("launcher.srun.gres_every_step") ? ctx.gpus_per_node : 0;
  o.label = cfg.flag("launcher.srun.label");
  o.kill_on_bad_exit = cfg.flag("launcher.srun.kill_on_bad_exit");
  o.time = cfg.str("launcher.srun.time_per_run");
  o.extra_flags = cfg.strings("launcher.srun.extra_flags");
  return o;
}

slurm::MpirunOptions mpirun_options(const Plan& plan, const Config& cfg, const LaunchContext& ctx) {
  slurm::MpirunOptions o;
  o.program = cfg.str("launcher.mpirun.program");
  o.hosts = ctx.hosts;
  o.hostfile = detail::resolve_path(cfg, "launcher.mpirun.hostfile");
  o.nodes = plan.num_nodes;
  o.tasks_per_node = plan.ranks_per_node;
  o.env = plan.env;  // mpirun forwards only what -x names
  if (!ctx.master_addr.empty()) o.env["MASTER_ADDR"] = ctx.master_addr;
  o.env["MASTER_PORT"] = ctx.master_port;
  o.extra_flags = cfg.strings("launcher.mpirun.extra_flags");
  return o;
}

std::string cache_clear_script(bool sudo) {
  return std::string("sync && ") + (sudo ? "sudo -n " : "") + "/sbin/sysctl vm.drop_caches=3";
}

}  // namespace

void add_commands(Plan& plan, const Config& cfg, const LaunchContext& ctx) {
  const bool in_container = !cfg.str("container.image").empty();
  if (in_container && plan.launcher != "srun")
    detail::fail_at(cfg, "container.image",
                    "containers are started through pyxis, which needs launcher.type srun (got " + plan.launcher + ")");
  auto tool = [&](const std::string& name) {
    return in_container ? cfg.str("container.bin_dir") + "/" + name : host_tool(ctx.bin_dir, name);
  };
  // The executor writes these two files; the ranks see them under the results mount inside a container.
  const std::string out_seen = in_container ? kResultsMount : plan.experiment.output_dir;
  plan.plan_file = plan.experiment.output_dir + "/plan.json";
  plan.run_config_file = plan.experiment.output_dir + "/run.yaml";

  std::vector<std::string> per_node, step;  // launcher prefixes (empty: local)
  if (plan.launcher == "srun") {
    slurm::SrunOptions srun = srun_options(plan, cfg, ctx);
    per_node = guarded(cfg, [&] { return slurm::srun_per_node(srun); });
    step = guarded(cfg, [&] { return slurm::srun_step(srun); });
    if (in_container) {
      container::PyxisOptions pyxis = pyxis_options(plan, cfg, ctx);
      Command import;
      import.argv = per_node;
      for (const std::string& f : container::import_flags(pyxis)) import.argv.push_back(f);
      import.argv.push_back("true");
      plan.setup.insert(plan.setup.begin(), std::move(import));
      for (const std::string& f : container::run_flags(pyxis)) step.push_back(f);
    }
  } else if (plan.launcher == "mpirun") {
    slurm::MpirunOptions mpirun = mpirun_options(plan, cfg, ctx);
    per_node = guarded(cfg, [&] { return slurm::mpirun_per_node(mpirun); });
    step = guarded(cfg, [&] { return slurm::mpirun_step(mpirun); });
  }

  if (plan.experiment.cache_clear != CachePolicy::Off) {
    plan.cache_clear.argv = per_node;
    for (const char* w : {"sh", "-c"}) plan.cache_clear.argv.push_back(w);
    plan.cache_clear.argv.push_back(cache_clear_script(plan.experiment.cache_clear_sudo));
  }
  // The launcher itself gets the job-wide env: srun exports it to the tasks; mpirun reads its own OMPI_*
  // settings from it (e.g. OMPI_ALLOW_RUN_AS_ROOT) and forwards the rest with -x.
  if (plan.launcher != "local") plan.cache_clear.env = plan.launch.env = plan.env;
  plan.launch.argv = step;
  for (const std::string& w : {tool("bind"), std::string("--plan"), out_seen + "/plan.json", std::string("--"), tool("trainer"),
                               std::string("--config"), out_seen + "/run.yaml"})
    plan.launch.argv.push_back(w);
}

}  // namespace bert::harness
