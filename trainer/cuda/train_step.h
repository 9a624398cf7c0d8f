// One optimizer step of the CUDA trainer: forward, backward (with the bucketed gradient allreduce when
// data parallel), fused LAMB. After a few eager steps the whole step is captured once into a CUDA
// graph and replayed: per step the host only copies the batch and the micro-step to the device and
// launches the graph. Losses stay on the device until stats() (called at eval/log points only).
// Gradient accumulation (accumulation_steps = N > 1): step() is called once per micro-batch; the
// micro-batches' gradients (each scaled by grad_scale / N) add up in the flat fp32 gradient buffer,
// and the N-th call runs the allreduce and LAMB. First, middle and last micro-batches are three
// different graphs (zeroing the gradients; plain accumulation; allreduce + LAMB), each captured once.
// Data parallel through the host (DataParallel::host_exchange: ranks sharing a GPU), an update's step is
// two graphs: forward + backward (with the gradients' copies to the host), then, after the host's
// exchange, LAMB.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/data_parallel.h"
#include "trainer/cuda/lamb.h"
#include "trainer/cuda/op_timer.h"

namespace bert::cuda {

struct TrainStepOptions {
  LambHyper lamb;
  float grad_scale = 1.f;
  uint64_t dropout_seed = 0;
  uint32_t rank = 0;
  int accumulation_steps = 1;
  bool use_graph = true;
  int eager_steps_before_capture = 2;  // warm-up: allocations, cuBLASLt heuristics, kernel attributes
};

class CudaTrainStep {
 public:
  // limits.static_shapes is forced on when use_graph is set. dp may be null (one rank).
  CudaTrainStep(const model::ParamLayout& layout, CudaModelLimits limits, const TrainStepOptions& opt,
                DataParallel* dp = nullptr);
  ~CudaTrainStep();
  CudaTrainStep(const CudaTrainStep&) = delete;
  CudaTrainStep& operator=(const CudaTrainStep&) = delete;

  void set_params(const std::vector<float>& params);
  // One micro-batch on `batch`, dropout masks drawn for `micro_step` (trainer/model/dropout_rng.h).
  // Returns true when this call completed an update (always with accumulation_steps 1). With graphs,
  // every batch must have the rows the model was sized for (the captured shapes).
  bool step(const data::Batch& batch, uint32_t micro_step);
  model::StepStats stats() { return model_.stats(); }
  CudaModel& model() { return model_; }
  FusedLamb& lamb() { return lamb_; }
  bool graph_captured() const;
  // One whole update on `batch` (accumulation_steps 1) with every op marked on `timer` (reset first):
  // captured into its own graph and replayed once when use_graph is set (the timer's events become
  // event-record nodes), queued eagerly otherwise. Synchronises; read the timer afterwards.
  void profile_step(const data::Batch& batch, uint32_t micro_step, OpTimer& timer);

 private:
  // Which part of an update a micro-batch is: its own graph each.
  enum Phase { kWhole, kFirst, kMiddle, kLast, kPhases };
  // Which half of it: everything, or (host exchange) the forward and backward, then the update.
  enum Half { kAll, kCompute, kUpdate, kHalves };
  struct Captured {
    int eager_done = 0;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
  };
  void enqueue(Phase phase, Half half, uint32_t micro_step, OpTimer* timer = nullptr);
  void run(Phase phase, Half half, uint32_t micro_step);

  const model::ParamLayout& layout_;
  TrainStepOptions opt_;
  CudaModel model_;
  FusedLamb lamb_;
  DeviceBuffer<float> m_, v_;
  DataParallel* dp_;
  int model_limits_rows_ = 0;
  int micro_in_update_ = 0;
  Captured captured_[kPhases][kHalves];
};

}  // namespace bert::cuda
