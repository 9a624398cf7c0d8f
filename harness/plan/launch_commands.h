// The command lines of a Plan: the launcher's per-node prefix, the container runtime's setup step, the
// per-experiment cache clear, the trainer command and the launch line (launcher step + container +
// trainer). Launchers and container runtimes are types (harness/launch, container/); this composes them.
#pragma once
#include <string>

#include "harness/config/config.h"
#include "harness/launch/launcher.h"
#include "harness/plan/data_setup.h"
#include "harness/plan/plan.h"

namespace bert::harness {

// Where a container sees the data, checkpoint and output directories.
inline constexpr const char* kTrainMount = "/data/train";
inline constexpr const char* kEvalMount = "/data/eval";
inline constexpr const char* kCheckpointMount = "/data/checkpoint";
inline constexpr const char* kResultsMount = "/results";

struct LaunchContext {
  JobShape job;
  DataPaths data;
  std::string bin_dir;  // BuildOptions::bin_dir
  std::string trainer = "trainer";  // the trainer binary of the run's backend (trainer-cuda: CUDA)
  Env process_env;      // SLURM_JOB_ID names the container
};

// Fills plan.mpi, plan.container, plan.per_node, plan.setup (the container's import step first),
// plan.cache_clear, plan.trainer, plan.launch, plan.plan_file and plan.run_config_file. Needs plan's
// launcher, node/rank counts, env and experiment.
void add_commands(Plan& plan, const Config& cfg, const LaunchContext& ctx);

}  // namespace bert::harness
