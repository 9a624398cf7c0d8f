// The trainer's main loop on the CPU backend: bootstrap ranks, MLPerf log (rank 0, NVIDIA's order),
// model + LAMB setup, data after run_start, train steps with gradient accumulation and allreduce,
// evals on the MLPerf cadence, stop at the target (success) or at max steps/samples or SIGTERM
// (aborted). `--benchmark N` runs N steps on in-memory batches instead and prints throughput.
#pragma once
#include <atomic>
#include <string>

#include "trainer/run_config.h"

namespace bert::trainer {

struct TrainOptions {
  int benchmark_steps = 0;  // > 0: throughput mode, no data, no MLPerf log
  std::string save_weights;  // rank 0 writes the final weights here (checkpoint HDF5 layout)
};

// Set by the SIGTERM/SIGINT handler: finish the current step, log run_stop aborted, exit.
extern std::atomic<bool> g_stop_requested;

// Exit code: 0 run completed (success or aborted by max/SIGTERM), 1 diverged (NaN loss).
// User errors are thrown (RunConfigError, data::DataError, model::ModelError, dist::DistError,
// cpu::BatchError) for main() to print and exit 2.
int run_trainer(const RunConfig& cfg, const TrainOptions& opt);

}  // namespace bert::trainer
