// detect_process(): who am I, from the variables each launcher sets.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "trainer/comm/comm.h"
#include "trainer/comm/env.h"
#include "trainer/comm/launcher_pmi.h"

namespace bert::dist {
namespace {

int require_int(const char* name) {
  auto v = env_int(name);
  if (!v) throw DistError(std::string("environment variable ") + name + " is not set");
  return *v;
}

// SLURM_STEP_TASKS_PER_NODE looks like "2(x3),1": tasks per node in node order.
int slurm_tasks_on_node(const std::string& spec, int node) {
  int index = 0;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(pos, end - pos);
    int count = 0, repeat = 1;
    size_t paren = item.find("(x");
    try {
      count = std::stoi(item.substr(0, paren));
      if (paren != std::string::npos) repeat = std::stoi(item.substr(paren + 2));
    } catch (const std::exception&) {
      throw DistError("cannot parse SLURM_STEP_TASKS_PER_NODE='" + spec + "'");
    }
    if (node < index + repeat) return count;
    index += repeat;
    pos = end + 1;
  }
  throw DistError("SLURM_STEP_TASKS_PER_NODE='" + spec + "' lists no node " + std::to_string(node));
}

void validate(const ProcessInfo& p, const std::string& vars) {
  auto bad = [&](const std::string& what) {
    throw DistError(std::string("inconsistent ") + p.launcher_name() + " environment (" + vars + "): " + what);
  };
  if (p.size < 1) bad("world size " + std::to_string(p.size) + " < 1");
  if (p.rank < 0 || p.rank >= p.size)
    bad("rank " + std::to_string(p.rank) + " outside [0, " + std::to_string(p.size) + ")");
  if (p.local_size < 1 || p.local_size > p.size)
    bad("local size " + std::to_string(p.local_size) + " outside [1, " + std::to_string(p.size) + "]");
  if (p.local_rank < 0 || p.local_rank >= p.local_size)
    bad("local rank " + std::to_string(p.local_rank) + " outside [0, " + std::to_string(p.local_size) + ")");
  if (p.num_nodes < 1 || p.node < 0 || p.node >= p.num_nodes)
    bad("node " + std::to_string(p.node) + " outside [0, " + std::to_string(p.num_nodes) + ")");
}

// The ranks' places as a launcher's variables give them: `read` fills them in, then they are validated
// (`vars`: the variables, for the message).
ProcessInfo read_launcher(Starter launcher, void (*read)(ProcessInfo&), const char* vars) {
  ProcessInfo p;
  p.launcher = launcher;
  read(p);
  validate(p, vars);
  return p;
}

void read_mpirun(ProcessInfo& p) {
  // Open MPI maps ranks in blocks per node (the harness passes --map-by ppr:G:node).
  p.rank = require_int("OMPI_COMM_WORLD_RANK");
  p.size = require_int("OMPI_COMM_WORLD_SIZE");
  p.local_rank = env_int_or("OMPI_COMM_WORLD_LOCAL_RANK", 0);
  p.local_size = env_int_or("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  p.num_nodes = env_int_or("OMPI_MCA_orte_num_nodes", (p.size + p.local_size - 1) / std::max(p.local_size, 1));
  p.node = p.local_size > 0 ? p.rank / p.local_size : 0;
}

void read_srun(ProcessInfo& p) {
  p.rank = require_int("SLURM_PROCID");
  p.size = env_int("SLURM_STEP_NUM_TASKS").value_or(require_int("SLURM_NTASKS"));
  p.local_rank = require_int("SLURM_LOCALID");
  p.node = env_int_or("SLURM_NODEID", 0);
  p.num_nodes = env_int("SLURM_STEP_NUM_NODES").value_or(env_int_or("SLURM_NNODES", 1));
  auto per_node = env_string("SLURM_STEP_TASKS_PER_NODE");
  if (!per_node) per_node = env_string("SLURM_TASKS_PER_NODE");
  p.local_size = per_node ? slurm_tasks_on_node(*per_node, p.node) : p.size / std::max(p.num_nodes, 1);
}

void read_local(ProcessInfo& p) {
  p.rank = require_int("RANK");
  p.size = require_int("WORLD_SIZE");
  p.local_rank = env_int_or("LOCAL_RANK", p.rank);
  p.local_size = env_int_or("LOCAL_WORLD_SIZE", p.size);
  p.node = env_int_or("NODE_RANK", 0);
  p.num_nodes = p.local_size > 0 ? (p.size + p.local_size - 1) / p.local_size : 1;
}

}  // namespace

// RANK/WORLD_SIZE are also exported under srun and mpirun (by `bind`, from the Plan). They mean a
// local launch only when they disagree with the outer launcher's: then an inner local launcher
// (e.g. `srun -n1 harness run local.yaml`) started this process.
ProcessInfo detect_process() {
  const bool has_local = env_string("RANK") && env_string("WORLD_SIZE");
  std::optional<ProcessInfo> outer;
  if (env_string("OMPI_COMM_WORLD_RANK")) {
    outer = read_launcher(Starter::Mpirun, read_mpirun, "OMPI_COMM_WORLD_*");
  } else if (env_string("SLURM_PROCID") && (env_string("SLURM_STEP_ID") || env_string("SLURM_STEPID"))) {
    outer = read_launcher(Starter::Srun, read_srun,
                          "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID/SLURM_NODEID/SLURM_STEP_TASKS_PER_NODE");
  }
  ProcessInfo p;
  if (has_local) {
    p = read_launcher(Starter::Local, read_local, "RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE/NODE_RANK");
    if (outer && outer->rank == p.rank && outer->size == p.size) p = *outer;
  } else if (outer) {
    p = *outer;
  } else {
    p.launcher = Starter::Single;
  }
  p.pmi = requested_pmi(p.launcher);
  return p;
}

}  // namespace bert::dist
