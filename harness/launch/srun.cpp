// Slurm's srun: inside an allocation the nodes are SLURM_JOB_NODELIST's; the step runs every rank
// (`srun -l --mpi=M --nodes=N --ntasks=N*T --ntasks-per-node=T ...`, run.sub's flags), lines tagged
// "<task>: "; a running step is stopped with scancel (srun does not pass SIGTERM on to its tasks).
#include <algorithm>
#include <regex>
#include <sstream>

#include "harness/launch/cpu_mask.h"
#include "harness/launch/launcher.h"

namespace bert::harness {
namespace {

struct SrunFlags {
  int gres_gpus = 0;  // > 0: --gres=gpu:N on every step (Inventec)
  std::vector<std::string> extra;
};

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::vector<std::string> srun_base(const JobShape& job, int tasks_per_node, const SrunFlags& f) {
  std::vector<std::string> a{"srun", "--nodes=" + std::to_string(job.nodes),
                             "--ntasks=" + std::to_string(job.nodes * tasks_per_node),
                             "--ntasks-per-node=" + std::to_string(tasks_per_node)};
  if (!job.exclude.empty()) a.push_back("--exclude=" + joined(job.exclude));
  if (f.gres_gpus > 0) a.push_back("--gres=gpu:" + std::to_string(f.gres_gpus));
  return a;
}

// --cpu-bind=mask_cpu:M0,M1,... and --mem-bind=mask_mem:... (one mask per local rank), or --cpu-bind=none.
std::vector<std::string> bind_flags(const std::vector<RankCpus>& ranks) {
  if (ranks.empty() || ranks.front().cpus.empty()) return {"--cpu-bind=none"};
  std::string cpus = "--cpu-bind=mask_cpu:", mems = "--mem-bind=mask_mem:";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) cpus += ',', mems += ',';
    cpus += list_to_hex_mask(ranks[i].cpus, "binding.cpu");
    if (!ranks[i].mems.empty()) mems += list_to_hex_mask(ranks[i].mems, "binding.mem");
  }
  if (ranks.front().mems.empty()) return {cpus};
  return {cpus, mems};
}

class Srun final : public Launcher {
 public:
  LauncherType type() const override { return LauncherType::Srun; }

  Hosts find_hosts(const Config& cfg, const Env& env, const NodeRequest& req) const override {
    Hosts h;
    // Inside an allocation: the real node names; rank 0 runs on the first (run.sub's MLPERF_SLURM_FIRSTNODE,
    // unless that one is excluded).
    h.names = allocation_hosts(cfg, env, req, h.warnings);
    if (!h.names.empty()) h.master_addr = h.names.front();
    if (auto it = env.find("MLPERF_SLURM_FIRSTNODE"); it != env.end() && !it->second.empty() &&
        std::find(req.exclude.begin(), req.exclude.end(), it->second) == req.exclude.end())
      h.master_addr = it->second;
    return h;
  }
  std::string placeholder_host(int node) const override { return "slurm-node-" + std::to_string(node); }

  // run.sub runs the harness in the batch step (paths relative to the repository root).
  std::vector<std::string> submit_command(const JobShape& job, const std::string& job_walltime,
                                          const std::string& system_file) const override {
    std::vector<std::string> c{"sbatch", "--nodes=" + std::to_string(job.nodes)};
    if (!job.exclude.empty()) c.push_back("--exclude=" + joined(job.exclude));
    if (!job_walltime.empty()) c.push_back("--time=" + job_walltime);
    c.insert(c.end(), {"slurm/run.sub", system_file});
    return c;
  }

  LaunchLines lines(const Config& cfg, const JobShape& job) const override {
    require_shape(job);
    SrunFlags f;
    f.gres_gpus = cfg.flag("launcher.srun.gres_every_step") ? job.gpus_per_node : 0;
    f.extra = cfg.strings("launcher.srun.extra_flags");
    LaunchLines l;
    l.mpi = cfg.str("launcher.srun.mpi");
    // One task per node (cache clear, container import): no --mpi, no -l, no --time.
    l.per_node = srun_base(job, 1, f);
    l.per_node.insert(l.per_node.end(), f.extra.begin(), f.extra.end());
    l.step = srun_base(job, job.ranks_per_node, f);
    l.step.insert(l.step.begin() + 1, "--mpi=" + l.mpi);
    if (cfg.flag("launcher.srun.label")) l.step.insert(l.step.begin() + 1, "-l");
    if (cfg.flag("launcher.srun.kill_on_bad_exit")) l.step.push_back("--kill-on-bad-exit=1");
    // binding.apply launcher: Slurm binds each local rank (mask per local rank id); otherwise our
    // `bind` (or the trainer) places each rank and Slurm's own task binding would shrink the set under it.
    const std::vector<std::string> bind = bind_flags(job.bindings);
    l.step.insert(l.step.end(), bind.begin(), bind.end());
    if (!cfg.str("launcher.srun.time_per_run").empty()) l.step.push_back("--time=" + cfg.str("launcher.srun.time_per_run"));
    l.step.insert(l.step.end(), f.extra.begin(), f.extra.end());
    return l;
  }

  // srun --mpi=pmix starts UCX-based MPIs (HPC-X, Open MPI 5) as well as NCCL ranks.
  std::vector<NicVariable> nic_variables() const override { return {kNcclIbHca, kUcxNetDevices}; }

  RankTagStyle tag_style() const override { return RankTagStyle::TaskPrefix; }
  std::vector<std::string> per_node_tag_flags() const override { return {"-l"}; }

  // Inside an allocation `scancel --signal=TERM JOBID` signals every step but the batch one: our
  // training step (srun itself exits at SIGTERM without passing it on; its tasks would run on).
  std::vector<std::string> stop_command(const Env& env) const override {
    auto it = env.find("SLURM_JOB_ID");
    if (it == env.end() || it->second.empty()) return {};
    return {"scancel", "--signal=TERM", it->second};
  }

  // A step that shares the nodes with the training step (--overlap), exporting the whole environment.
  std::vector<std::string> beside_step_prefix(const std::vector<std::string>& per_node,
                                              const std::vector<std::string>&) const override {
    std::vector<std::string> a = per_node;
    if (!a.empty()) a.insert(a.begin() + 1, "--overlap");
    return a;
  }
  std::string node_index_variable() const override { return "SLURM_NODEID"; }

  // "srun: error: dgx-03: task 5: Exited with exit code 2" (or "tasks 2-3: Killed").
  RankFailure read_failure(const std::string& log_text, int, const std::string& process_status) const override {
    static const std::regex task(R"(srun: error: [^:]*: tasks? (\d+)(?:-\d+)?: (.*)$)");
    RankFailure f;
    std::istringstream in(log_text);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (!std::regex_search(line, m, task)) continue;
      f.rank = std::stoi(m[1]);
      f.status = m[2];
      if (f.status.rfind("Exited with ", 0) == 0) f.status.erase(0, 12);
      break;
    }
    if (f.status.empty()) f.status = std::string(name()) + " " + process_status;
    return f;
  }
};

}  // namespace

const Launcher& srun_launcher() {
  static const Srun l;
  return l;
}

}  // namespace bert::harness
