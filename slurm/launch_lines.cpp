#include "slurm/launch_lines.h"

namespace bert::slurm {
namespace {

void check_common(int nodes, int tasks_per_node) {
  if (nodes < 1) throw LaunchError("nodes.count", "need at least 1 node, got " + std::to_string(nodes));
  if (tasks_per_node < 1)
    throw LaunchError("nodes.ranks_per_node", "need at least 1 task per node, got " + std::to_string(tasks_per_node));
}

std::vector<std::string> srun_base(const SrunOptions& o, int tasks_per_node) {
  check_common(o.nodes, tasks_per_node);
  std::vector<std::string> a{"srun"};
  a.push_back("--nodes=" + std::to_string(o.nodes));
  a.push_back("--ntasks=" + std::to_string(o.nodes * tasks_per_node));
  a.push_back("--ntasks-per-node=" + std::to_string(tasks_per_node));
  if (o.gres_gpus > 0) a.push_back("--gres=gpu:" + std::to_string(o.gres_gpus));
  return a;
}

std::vector<std::string> mpirun_base(const MpirunOptions& o, int tasks_per_node) {
  check_common(o.nodes, tasks_per_node);
  std::vector<std::string> a{o.program, "-np", std::to_string(o.nodes * tasks_per_node), "--map-by",
                             "ppr:" + std::to_string(tasks_per_node) + ":node", "--bind-to", "none"};
  if (!o.hostfile.empty()) {
    a.insert(a.end(), {"--hostfile", o.hostfile});
  } else {
    if (static_cast<int>(o.hosts.size()) != o.nodes)
      throw LaunchError("launcher.mpirun.hosts", "lists " + std::to_string(o.hosts.size()) + " hosts for " +
                                                     std::to_string(o.nodes) + " nodes");
    std::string list;
    for (const std::string& h : o.hosts) {
      if (h.empty() || h.find_first_of(",: \t") != std::string::npos)
        throw LaunchError("launcher.mpirun.hosts", "host name '" + h + "' is empty or holds ',', ':' or a blank");
      list += (list.empty() ? "" : ",") + h + ":" + std::to_string(tasks_per_node);
    }
    a.insert(a.end(), {"--host", list});
  }
  for (const auto& [k, v] : o.env) a.insert(a.end(), {"-x", k + "=" + v});
  return a;
}

}  // namespace

std::vector<std::string> srun_step(const SrunOptions& o) {
  if (o.mpi != "pmi2" && o.mpi != "pmix" && o.mpi != "none")
    throw LaunchError("launcher.srun.mpi", "must be pmi2, pmix or none, got '" + o.mpi + "'");
  std::vector<std::string> a = srun_base(o, o.tasks_per_node);
  a.insert(a.begin() + 1, "--mpi=" + o.mpi);
  if (o.label) a.insert(a.begin() + 1, "-l");
  if (o.kill_on_bad_exit) a.push_back("--kill-on-bad-exit=1");
  // Our `bind` places each rank; Slurm's own task binding would shrink the allowed set under it.
  a.push_back("--cpu-bind=none");
  if (!o.time.empty()) a.push_back("--time=" + o.time);
  a.insert(a.end(), o.extra_flags.begin(), o.extra_flags.end());
  return a;
}

std::vector<std::string> srun_per_node(const SrunOptions& o) {
  std::vector<std::string> a = srun_base(o, 1);
  a.insert(a.end(), o.extra_flags.begin(), o.extra_flags.end());
  return a;
}

std::vector<std::string> mpirun_step(const MpirunOptions& o) {
  std::vector<std::string> a = mpirun_base(o, o.tasks_per_node);
  if (o.tag_output) a.push_back("--tag-output");
  a.insert(a.end(), o.extra_flags.begin(), o.extra_flags.end());
  return a;
}

std::vector<std::string> mpirun_per_node(const MpirunOptions& o) {
  std::vector<std::string> a = mpirun_base(o, 1);
  a.insert(a.end(), o.extra_flags.begin(), o.extra_flags.end());
  return a;
}

}  // namespace bert::slurm
