// Whether each trainer backend's training path has been verified end to end, in one line each, for
// the harness's dry-run: a user queueing a whole allocation deserves to know.
#pragma once
#include <string>

namespace bert::trainer {

struct BackendStatus {
  bool verified = false;
  std::string evidence;  // what verified it, or why it is not
};

inline BackendStatus backend_status(const std::string& backend) {
  if (backend == "cpu")
    return {true, "trains tiny BERT to its target in CI (tests/integration/trainer/converge.sh, slurm_sbatch_*)"};
  if (backend == "cuda")
    return {false, "the CUDA backend has never run on a GPU: it compiles, every GPU test was skipped (trainer/cuda/NOTES.md)"};
  return {false, "unknown backend '" + backend + "'"};
}

}  // namespace bert::trainer
