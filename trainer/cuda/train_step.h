// One optimizer step of the CUDA trainer: forward, backward (with the bucketed NCCL allreduce when
// data parallel), fused LAMB. After a few eager steps the whole step is captured once into a CUDA
// graph and replayed: per step the host only copies the batch and the micro-step to the device and
// launches the graph. Losses stay on the device until stats() (called at eval/log points only).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/data_parallel.h"
#include "trainer/cuda/lamb.h"

namespace bert::cuda {

struct TrainStepOptions {
  LambHyper lamb;
  float grad_scale = 1.f;
  uint64_t dropout_seed = 0;
  uint32_t rank = 0;
  bool use_graph = true;
  int eager_steps_before_capture = 2;  // warm-up: allocations, cuBLASLt heuristics, kernel attributes
};

class CudaTrainStep {
 public:
  // limits.static_shapes is forced on when use_graph is set. dp may be null (one GPU).
  CudaTrainStep(const model::ParamLayout& layout, CudaModelLimits limits, const TrainStepOptions& opt,
                NcclDataParallel* dp = nullptr);
  ~CudaTrainStep();
  CudaTrainStep(const CudaTrainStep&) = delete;
  CudaTrainStep& operator=(const CudaTrainStep&) = delete;

  void set_params(const std::vector<float>& params);
  // One update on `batch`; dropout masks drawn for `micro_step` (trainer/model/dropout_rng.h).
  void step(const data::Batch& batch, uint32_t micro_step);
  CudaStepStats stats() { return model_.stats(); }
  CudaModel& model() { return model_; }
  FusedLamb& lamb() { return lamb_; }
  bool graph_captured() const { return exec_ != nullptr; }

 private:
  void enqueue(uint32_t micro_step);

  const model::ParamLayout& layout_;
  TrainStepOptions opt_;
  CudaModel model_;
  FusedLamb lamb_;
  DeviceBuffer<float> m_, v_;
  NcclDataParallel* dp_;
  int eager_done_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace bert::cuda
