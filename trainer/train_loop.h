// The trainer's main loop, shared by both backends (train_backend.h: cpu, cuda): bootstrap ranks,
// MLPerf log (rank 0, NVIDIA's order), backend setup, data after run_start, train steps (gradient
// accumulation, allreduce and LAMB inside the backend), evals on the MLPerf cadence, stop at the
// target (success) or at max steps/samples or SIGTERM (aborted). `--benchmark N` runs N steps on
// in-memory batches instead and prints throughput.
#pragma once
#include <string>

#include "trainer/run_config.h"

namespace bert::trainer {

struct TrainOptions {
  int benchmark_steps = 0;  // > 0: throughput mode, no data, no MLPerf log
  std::string save_weights;  // rank 0 writes the final weights here (checkpoint HDF5 layout)
  std::string config_path = "run config";  // names the file in backend errors
};

// SIGTERM/SIGINT (stop_signal.h): the loop finishes the current step, logs run_stop aborted, exits.
// Exit code: 0 run completed (success or aborted by max/SIGTERM), 1 diverged (NaN loss).
// User errors are thrown as bert::UserError (RunConfigError, data::DataError, model::ModelError,
// dist::DistError and model::BatchError are its names) for main() to print and exit 2; run.backend: cuda without CUDA in the build or
// without a device is a RunConfigError. Other failures (a CUDA runtime error mid-run) are other
// std::exceptions: main() prints them and exits 1.
int run_trainer(const RunConfig& cfg, const TrainOptions& opt);

}  // namespace bert::trainer
