// trainer --config run.yaml [--benchmark N]
// Exit codes: 0 run completed (success, or aborted by max steps/samples or SIGTERM), 1 diverged,
// 2 user error (bad config, missing/corrupt data or checkpoint, checkpoint/model mismatch, run.backend
// cuda without CUDA or a device), 1 also for an unexpected runtime failure (message, no crash).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "common/cli_parse.h"
#include "common/user_error.h"
#include "trainer/run_config.h"
#include "trainer/stop_signal.h"
#include "trainer/train_loop.h"

int main(int argc, char** argv) {
  bert::trainer::start_stop_signal_thread();
  CLI::App app{"BERT pretraining trainer (MLPerf Training); reads a resolved run config"};
  std::string config_path;
  int benchmark_steps = 0;
  app.add_option("--config", config_path, "run config (YAML or JSON), as written by the harness")->required();
  app.add_option("--benchmark", benchmark_steps, "run N steps on in-memory batches and print throughput")
      ->check(CLI::PositiveNumber);
  std::string save_weights;
  app.add_option("--save-weights", save_weights, "write the final weights (checkpoint HDF5 layout) to this file");
  if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  try {
    const bert::trainer::RunConfig cfg = bert::trainer::load_run_config(config_path);
    return bert::trainer::run_trainer(cfg, {benchmark_steps, save_weights, config_path});
  } catch (const bert::UserError& e) {  // bad config, data, checkpoint, model or launch environment
    std::fprintf(stderr, "trainer: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // not the user's doing (e.g. a CUDA runtime failure): no crash either
    std::fprintf(stderr, "trainer: error: %s\n", e.what());
    return 1;
  }
}
