// How the ranks are started: one type per launcher (local.cpp, srun.cpp, mpirun.cpp) behind this
// interface, found by the name `launcher.type` gives. A launcher owns everything that differs between
// launchers: where the nodes are and what they are called, its argv for one task per node (cache clear,
// container import, preflight) and for the training step, how the rank of an output line is known, how
// a running step is stopped and how it reports a failed rank. Nothing outside harness/launch/ compares
// launcher names. Adding one (Flux, PBS) = one file implementing this + its entry in launcher.cpp.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "container/runtime.h"
#include "harness/config/config.h"
#include "harness/config/settings.h"
#include "harness/launch/rank_tags.h"

namespace bert::harness {

using Env = std::map<std::string, std::string>;

// The nodes a set asks for: how many, how few it may shrink to (nodes.min_count), and which not to use.
struct NodeRequest {
  int count = 1;                      // nodes.count
  int min_count = 0;                  // nodes.min_count: fewer allowed down to this (0 = count: fixed)
  std::vector<std::string> exclude;   // --exclude: bad nodes the set continues without
};

struct Hosts {
  std::vector<std::string> names;  // one per node; empty (or short) when not known before the job runs
  std::string master_addr;         // rendezvous address ("" = the trainer's default)
  std::vector<std::string> warnings;  // what could not be known here (a hostfile not readable on this host)
};

// One local rank's binding in OS numbering (hwloc list syntax, "" = unbound), the same on every node.
struct RankCpus {
  std::string cpus;  // "0-3,64-67"
  std::string mems;  // NUMA nodes, "0"
};

// The job the launcher's lines are for.
struct JobShape {
  int nodes = 1;
  int ranks_per_node = 1;
  int gpus_per_node = 0;
  Hosts hosts;                     // as find_hosts gave them, master_addr final (launcher.master_addr wins)
  std::string master_port;
  Env env;                         // the job-wide environment (the YAML's env:)
  std::vector<std::string> forward;  // variables the executor sets per experiment (SEED): passed on by name
  std::vector<std::string> exclude;  // nodes the launcher must not place a task on (srun/sbatch --exclude)
  std::vector<RankCpus> bindings;  // binding.apply launcher: per local rank, applied by the launcher's own
                                   // mechanism; empty = not the launcher's job
  std::string files_dir;           // where LaunchLines::files may go (the output directory)
};

struct LaunchLines {
  std::vector<std::string> per_node;  // argv prefix running one task on every node ([] = here, once)
  std::vector<std::string> step;      // argv prefix running every rank ([] = the executor starts each rank)
  std::string mpi;                    // the PMI/MPI plugin type the step asks for ("" = none)
  std::vector<std::vector<std::string>> rank_prefix;  // per local rank, before its command (ranks the
                                                      // executor starts: numactl for binding.apply launcher)
  std::map<std::string, std::string> files;           // path -> content the executor writes before the step
  std::vector<std::string> notes;                     // what the plan should say about the lines (dry-run)
};

// A variable through which a library of the launch learns a rank's NICs, and how it wants them written
// (nic_env.cpp renders them; each launcher lists the ones its ranks' libraries read).
enum class NicFormat {
  NcclHca,   // "=mlx5_0:1,mlx5_1:1": '=' makes NCCL match whole names (a bare mlx5_1 also takes mlx5_10)
  DevPorts,  // "mlx5_0:1,mlx5_1:1" (UCX_NET_DEVICES, Open MPI's btl_openib_if_include)
};
struct NicVariable {
  const char* name;
  NicFormat format;
};
inline constexpr NicVariable kNcclIbHca{"NCCL_IB_HCA", NicFormat::NcclHca};
inline constexpr NicVariable kUcxNetDevices{"UCX_NET_DEVICES", NicFormat::DevPorts};
inline constexpr NicVariable kOpenibIfInclude{"OMPI_MCA_btl_openib_if_include", NicFormat::DevPorts};

struct RankFailure {
  int rank = -1;       // -1 = not known
  std::string status;  // "exit code 2", "Killed", ...
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual LauncherType type() const = 0;
  const char* name() const { return enum_name(type(), kLauncherTypeNames); }  // its launcher.type word

  // ---- planning (harness/plan) ----
  // The nodes and the rendezvous address, from the system and the process environment (e.g. the
  // allocation's node list), without the excluded ones. Fewer names than req.count only where
  // req.min_count allows it (the plan is then made for them). Throws UserError at the key at fault.
  virtual Hosts find_hosts(const Config& cfg, const Env& env, const NodeRequest& req) const = 0;
  Hosts find_hosts(const Config& cfg, const Env& env, int num_nodes) const { return find_hosts(cfg, env, NodeRequest{num_nodes, 0, {}}); }
  // A node's name when find_hosts could not know it (a dry-run outside the job).
  virtual std::string placeholder_host(int node) const = 0;
  // Throws UserError (placed, or naming its key in `field`) for a value the launcher cannot take.
  virtual LaunchLines lines(const Config& cfg, const JobShape& job) const = 0;
  // The command that queues the whole set of `system_file` in a batch system (sbatch --nodes --time
  // slurm/run.sub X), or [] when the set is started directly.
  virtual std::vector<std::string> submit_command(const JobShape&, const std::string& /*job_walltime*/,
                                                  const std::string& /*system_file*/) const {
    return {};
  }

  // The variables that carry one rank's NICs ("mlx5_0:1", ...) to the libraries its ranks use: NCCL
  // everywhere, plus the MPI transports of a launcher that starts an MPI job.
  virtual std::vector<NicVariable> nic_variables() const { return {kNcclIbHca}; }

  // ---- running (harness/run) ----
  virtual RankTagStyle tag_style() const = 0;
  // Flags that make the per-node prefix tag each task's output lines in tag_style().
  virtual std::vector<std::string> per_node_tag_flags() const = 0;
  // The command that asks every rank of a running step to stop, when SIGTERM to the launched process
  // would not reach them; empty = SIGTERM to the launched process groups is enough.
  virtual std::vector<std::string> stop_command(const Env& env) const = 0;
  // A program on every node beside the running training step (the power monitor): the argv prefix from
  // the per-node one (srun --overlap, mpirun one task a node; [] = here, once), the variables in
  // `forward` passed on by name (never their values on the command line).
  virtual std::vector<std::string> beside_step_prefix(const std::vector<std::string>& per_node,
                                                      const std::vector<std::string>& forward) const = 0;
  // The variable that gives such a task its node's index in the plan's node order ("" = one node: 0).
  virtual std::string node_index_variable() const = 0;
  // Which rank failed and how, from the step's log (the launcher's own messages) and the launched
  // process that failed first: its index and its wait status in words ("exit status 3").
  virtual RankFailure read_failure(const std::string& log_text, int process, const std::string& process_status) const = 0;

  // The executor starts each rank itself (one process per rank; a line's rank is its pipe), with the
  // job-wide environment; otherwise one launcher process stands for every rank and gets that environment.
  bool starts_each_rank() const { return tag_style() == RankTagStyle::BySource; }
  // Whether a container runtime can start under this launcher (pyxis only under srun, whose plugin it is;
  // a runtime that binds each rank only when the executor starts each rank).
  bool can_start(const container::Runtime& rt) const;
};

// "" when `host` is a host name (RFC 1123 labels: letters, digits, '-', not at a label's ends; dots between)
// or an IP address; else what is wrong with it.
std::string host_name_problem(const std::string& host);

// The launcher of this launcher.type word (kLauncherTypeNames); throws UserError (field "launcher.type")
// naming the known ones.
const Launcher& find_launcher(std::string_view name);
std::vector<std::string> launcher_names();  // the implemented launchers' words
// The launcher.<other>.* keys the system gives for a launcher it does not use (launcher.srun.mpi with
// launcher.type local): keys nothing reads.
std::vector<std::string> unused_launcher_keys(const Config& cfg, std::string_view type);

// For implementations: inside a Slurm allocation its nodes (SLURM_JOB_NODELIST) less the excluded ones,
// else []; an allocation that leaves another number than req.count (or fewer than req.min_count) is a
// UserError at nodes.count naming the way out (a spare node, sbatch --exclude). `warnings` gets a line
// when the set shrinks.
std::vector<std::string> allocation_hosts(const Config& cfg, const Env& env, const NodeRequest& req,
                                          std::vector<std::string>& warnings);
// For implementations: `names` less the excluded ones; an excluded name that is not among them is a
// UserError (field "--exclude") naming the nodes there are.
std::vector<std::string> without_excluded(const std::vector<std::string>& names, const NodeRequest& req,
                                          const std::string& where);
// One rank's NIC variables under `launcher` ({} when it has no NIC).
Env nic_env(const Launcher& launcher, const std::vector<std::string>& nics);

// For implementations: throws UserError when the shape has no node or no rank per node.
void require_shape(const JobShape& job);

}  // namespace bert::harness
