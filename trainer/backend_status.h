// Whether each trainer backend's training path has been verified end to end, in one line each, for
// the harness's dry-run: a user queueing a whole allocation deserves to know. The CUDA backend's line
// is made from trainer/cuda/verified.json (embedded at configure time), the record of the newest device
// run that `scripts/bench-gpu record` writes beside appending it to bench/results/gpu.json, so a new
// device run recorded updates the dry-run, and the docs' generated blocks with it
// (tests/integration/harness: harness_gpu_status_docs).
#pragma once
#include <string>

#include "trainer/run_config.h"

namespace bert::trainer {

struct BackendStatus {
  bool verified = false;
  std::string evidence;  // what verified it, or why it is not
};

BackendStatus backend_status(Backend backend, Precision precision);

// The status a device run gives the CUDA backend: `run_json` is its record (trainer/cuda/verified.json, or
// an entry of bench/results/gpu.json): commit, date, device, driver, tests [{name, status
// PASS|FAIL|TIMEOUT|SKIP|NOT RUN}], not_verified.
// Verified for `precision` when every test of it passed or was skipped (the FP8 tests, named `*fp8*`, count
// only for fp8; the evidence names every test's outcome); throws std::runtime_error on an entry without them.
// `source_since`: whether trainer/cuda as built differs from the run's commit ("same", "changed",
// "unknown"): changed code is NOT VERIFIED whatever the run said; unknown says so.
BackendStatus cuda_status_of_run(const std::string& run_json, Precision precision,
                                 const std::string& source_since = "same");

}  // namespace bert::trainer
