// argv builders for the launchers the harness drives: Slurm's srun and Open MPI's mpirun.
// They return argv prefixes; the caller appends container flags (srun) and the program to run.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace bert::slurm {

struct LaunchError : std::invalid_argument {
  LaunchError(std::string field_, const std::string& msg) : std::invalid_argument(msg), field(std::move(field_)) {}
  std::string field;
};

struct SrunOptions {
  std::string mpi = "pmix";             // pmi2 | pmix | none
  int nodes = 1;
  int tasks_per_node = 1;
  int gres_gpus = 0;                    // > 0: --gres=gpu:N on this step (Inventec: on every step)
  bool label = true;                    // -l: prefix output with the task id
  bool kill_on_bad_exit = true;
  std::string time;                     // per-step --time ("" = none)
  std::vector<std::string> extra_flags; // appended verbatim, one argv entry each
};

// srun for the training step: srun [-l] --mpi=M --nodes=N --ntasks=N*T --ntasks-per-node=T ...
std::vector<std::string> srun_step(const SrunOptions& o);

// srun running one task per node (cache clear, container import): no --mpi, no -l, no --time.
std::vector<std::string> srun_per_node(const SrunOptions& o);

struct MpirunOptions {
  std::string program = "mpirun";
  std::vector<std::string> hosts;       // one per node (used when hostfile is empty)
  std::string hostfile;
  int nodes = 1;
  int tasks_per_node = 1;
  std::map<std::string, std::string> env;  // exported to every rank with -x NAME=VALUE
  std::vector<std::string> extra_flags;
  bool tag_output = true;               // --tag-output: "[1,R]<stdout>:" prefixes (the executor finds rank 0's log)
};

// mpirun -np N*T --map-by ppr:T:node --bind-to none (--host h:T,... | --hostfile F) -x ... --tag-output extra
std::vector<std::string> mpirun_step(const MpirunOptions& o);

// mpirun with one process per node (--map-by ppr:1:node).
std::vector<std::string> mpirun_per_node(const MpirunOptions& o);

}  // namespace bert::slurm
