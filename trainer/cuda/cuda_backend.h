// The trainer's CUDA backend (run.backend: cuda): CudaTrainStep behind the TrainBackend interface.
// No CUDA header here: train_backend.cpp (the run.backend selection) includes it in every CUDA build.
#pragma once
#include <memory>
#include <string>

#include "trainer/train_backend.h"

namespace bert::trainer {

// "" when this process sees at least one CUDA device, else why not (the CUDA runtime's words).
std::string cuda_device_problem();
// "" when every visible CUDA device has FP8 matrix units (compute capability 8.9 or later), else which
// one has not ("device 0 (NVIDIA A100-SXM4-80GB) is sm_80").
std::string cuda_fp8_problem();

// One GPU per rank, chosen by local rank; NCCL data parallelism when the world has > 1 rank.
std::unique_ptr<TrainBackend> make_cuda_backend(const BackendContext& ctx);

}  // namespace bert::trainer
