// The command lines of a Plan: data setup (`bert-data synth`), the pyxis import step, the per-node
// cache clear and the launch line (launcher + container flags + bind + trainer).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

// Where pyxis mounts the data, checkpoint and output directories inside the container.
inline constexpr const char* kTrainMount = "/data/train";
inline constexpr const char* kEvalMount = "/data/eval";
inline constexpr const char* kCheckpointMount = "/data/checkpoint";
inline constexpr const char* kResultsMount = "/results";

struct DataPaths {  // host paths
  std::string train_dir, eval_dir, checkpoint;
};

// Data from benchmark.data.* (env DATADIR/EVALDIR/CHECKPOINTDIR), or from benchmark.synthetic: then
// plan.setup gets the `bert-data synth` step (run only while its output is missing).
DataPaths resolve_data(const Config& cfg, Plan& plan, const std::string& bin_dir);

struct LaunchContext {
  std::vector<std::string> hosts;                   // mpirun host list (empty with a hostfile)
  std::string master_addr, master_port;
  int gpus_per_node = 0;
  DataPaths data;
  std::string bin_dir;                              // BuildOptions::bin_dir
  std::map<std::string, std::string> process_env;   // SLURM_JOB_ID names the container
};

// Fills plan.setup (the pyxis import first), plan.cache_clear, plan.launch, plan.plan_file and
// plan.run_config_file. Needs plan's launcher, node/rank counts, env and experiment.
void add_commands(Plan& plan, const Config& cfg, const LaunchContext& ctx);

}  // namespace bert::harness
