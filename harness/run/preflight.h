// Preflight on every node before the first experiment: processes already on the GPUs, processes
// pinned to CPUs our ranks are bound to, leftover enroot/pyxis containers, low free memory; and,
// blocking: the node's live topology against the plan's (bind --compare-topology; an assumed topology:
// its GPU count only), the output directory seen by every node (a token the executor wrote there, read
// back on each node), and the data paths every run reads (a missing one would fail every run).
// One probe script runs per node through the launcher's per-node prefix (Plan::per_node: here, or
// one task per node) with the launcher's output tags, and prints tagged lines.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/plan/plan.h"
#include "process/child_process.h"

namespace bert::harness {

struct PreflightFinding {
  std::string node;
  std::string what;       // "GPU process 1234 (python) using 1024 MiB", ...
  bool blocking = false;  // stops the set whatever --preflight says (except off): the plan itself is wrong here
};

// The blocking checks' inputs, written by the executor before the probe ("" = that check is off).
struct PreflightChecks {
  std::string bind;               // bind on the nodes (Plan::host_bind)
  std::string expected_topology;  // JSON of the plan's node topology
  std::string token_path;         // in the output directory
  std::string token;              // its content
  std::map<std::string, std::string> data_paths;  // key -> host path every node must read (Plan::data_paths)
  int expected_gpus = -1;         // an assumed topology (Plan::topology_assumed): the GPUs each node must have
                                  // (-1 = not checked; expected_topology compares the whole node instead)
};

struct PreflightReport {
  std::vector<PreflightFinding> findings;
  std::vector<std::string> notes;  // probes that could not run (no nvidia-smi, node unreachable)
};

// The probe script and the command that runs it once per node.
std::string preflight_probe_script(const PreflightChecks& checks = {});
ChildSpec preflight_command(const Plan& plan, const PreflightChecks& checks = {});

// Turns the probe output of one node into findings; `bound_cpus` is the union of the CPUs the plan
// binds ranks to on that node (hwloc list, "" = not bound), `probe_pids` are excluded.
std::vector<PreflightFinding> parse_probe_output(const std::string& node, const std::string& output,
                                                 const std::string& bound_cpus, const PreflightChecks& checks = {});

// Splits launcher output tagged per task (srun -l / mpirun --tag-output) into per-node texts.
std::vector<std::string> split_probe_output(const Plan& plan, const std::string& output);

PreflightReport run_preflight(const Plan& plan, const PreflightChecks& checks = {});

}  // namespace bert::harness
