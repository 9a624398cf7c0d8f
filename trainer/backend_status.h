// Whether each trainer backend's training path has been verified end to end, in one line each, for
// the harness's dry-run: a user queueing a whole allocation deserves to know.
#pragma once
#include <string>

#include "trainer/run_config.h"

namespace bert::trainer {

struct BackendStatus {
  bool verified = false;
  std::string evidence;  // what verified it, or why it is not
};

inline BackendStatus backend_status(Backend backend) {
  switch (backend) {
    case Backend::Cpu:
      return {true, "trains tiny BERT to its target in CI (tests/integration/trainer/converge.sh, slurm_sbatch_*)"};
    case Backend::Cuda:
      return {false, "the CUDA backend has never run on a GPU: it compiles, every GPU test was skipped (trainer/cuda/NOTES.md)"};
  }
  return {false, "unknown backend"};
}

}  // namespace bert::trainer
