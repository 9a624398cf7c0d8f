// The `trainer` binary's CUDA slot (train_backend.h): this build has no CUDA backend; trainer-cuda
// links cuda/cuda_backend.cpp instead.
#include <stdexcept>

#include "trainer/train_backend.h"

namespace bert::trainer {

std::string cuda_backend_problem() {
  return "this trainer was built without CUDA (the CUDA backend is trainer-cuda, built when nvcc is found); "
         "use run.backend: cpu or trainer-cuda";
}

std::string cuda_fp8_problem() { return "this trainer was built without CUDA"; }

std::unique_ptr<TrainBackend> make_cuda_backend(const BackendContext&) {
  throw std::logic_error("make_cuda_backend in a build without CUDA (check_backend_available first)");
}

}  // namespace bert::trainer
