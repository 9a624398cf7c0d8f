// What the trainer's main loop (train_loop.cpp) needs from a model backend: one optimizer step from
// gradient_accumulation_steps micro-batches (allreduce, clipping and LAMB included) reporting this
// rank's statistics, pooled eval accuracy and the final weights. The loop owns everything else
// (bootstrap, MLPerf log, data, eval cadence, stopping and the ranks' agreement on a step's outcome:
// step_agreement.h, exit codes); a backend knows neither the loop nor the stop signal.
//   cpu   cpu_backend.cpp: BertCpu + optim::Lamb + the CPU collective's allreduce (comm/comm.h), fp32 or bf16 GEMMs.
//   cuda  cuda/cuda_backend.cpp (only when the build has CUDA): CudaTrainStep (CUDA graph, fused
//         LAMB, NCCL), bf16 compute with fp32 master weights.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trainer/data/batch.h"
#include "trainer/data/loader.h"
#include "trainer/comm/comm.h"
#include "trainer/model/params.h"
#include "trainer/optim/schedule.h"
#include "trainer/run_config.h"

namespace bert::trainer {

// Fills the next micro-batch; false when the training data is exhausted.
using NextBatch = std::function<bool(data::Batch&)>;

// What one optimizer step measured on this rank.
struct StepReport {
  int64_t sequences = 0;  // this rank's sequences
  // This rank's loss (mean over its micro-batches) and the gradient norm before clipping (this rank's
  // where it clips before the allreduce, else the global one). The CPU backend measures them every
  // step; the CUDA backend only in measure_loss().
  bool has_loss = false;
  double loss = 0, grad_norm = 0;
};

class TrainBackend {
 public:
  virtual ~TrainBackend() = default;

  // Weights to train from (flat layout of model::ParamLayout).
  virtual void set_params(const std::vector<float>& params) = 0;
  // The micro-batches and gradients of optimizer update `step_index` (0-based); false when `next` ran
  // dry first (no update). Collective: every rank calls it for the same step.
  virtual bool step(int64_t step_index, const NextBatch& next, StepReport& out) = 0;
  // After the ranks agreed on the step (step_agreement.h): the weight update where step() left it to
  // now (CPU: LAMB, skipped unless every rank's loss and gradient were finite; CUDA: LAMB ran in
  // step()). Collective.
  virtual void finish_step(int64_t step_index, bool all_finite) = 0;
  // Fills out.loss / out.grad_norm for the last step when step() did not (waits for the device).
  // Not collective.
  virtual void measure_loss(StepReport& out) = 0;
  // MLM accuracy pooled over every rank's slice of the eval set, without dropout. Collective.
  virtual double evaluate(const data::EvalSet& eval) = 0;
  // Current weights (flat layout); waits for the device.
  virtual std::vector<float> params() = 0;
  // Learning rate of update `step_index` (progress lines).
  virtual double learning_rate(int64_t step_index) const = 0;
  // "cpu, fp32, 4 threads" / "cuda, bf16, device 0 (NVIDIA H100)": for the benchmark line.
  virtual std::string describe() const = 0;
};

// Everything a backend is built from. kv: the bootstrap KV store (NCCL unique id); coll: the CPU
// collective (comm/comm.h: shared memory or Gloo), used by both backends for host-side reductions.
struct BackendContext {
  const RunConfig& cfg;
  const std::string& config_path;  // for error messages
  const model::ParamLayout& layout;
  const dist::ProcessInfo& proc;
  dist::KVStore& kv;
  dist::Collective& coll;
};

// Fails early, before any rendezvous, when cfg.backend cannot run in this build or on this machine:
// RunConfigError naming the config file and the key (a precision the backend does not compute in, cpu
// bf16 without bf16 instructions, fp8 on GPUs without FP8 matrix units; cuda without CUDA in the build,
// or without a CUDA device).
void check_backend_available(const RunConfig& cfg, const std::string& config_path);

// The backend cfg.backend names (check_backend_available first).
std::unique_ptr<TrainBackend> make_backend(const BackendContext& ctx);

std::unique_ptr<TrainBackend> make_cpu_backend(const BackendContext& ctx);

// The CUDA backend, linked into trainer-cuda from cuda/cuda_backend.cpp and into `trainer` (and the
// tests of the core) from no_cuda_backend.cpp, which offers none.
// "" when run.backend cuda can run here, else the end of "run.backend: cuda, but ...".
std::string cuda_backend_problem();
// "" when every visible CUDA device has FP8 matrix units (compute capability 8.9 or later), else which
// one has not ("device 0 (NVIDIA A100-SXM4-80GB) is sm_80"). Only after cuda_backend_problem() is "".
std::string cuda_fp8_problem();
// One GPU per rank, chosen by local rank; NCCL data parallelism when the world has > 1 rank.
std::unique_ptr<TrainBackend> make_cuda_backend(const BackendContext& ctx);

// The learning-rate schedule of the run config (both backends; the CUDA LAMB evaluates the same
// formula on the device).
optim::LrSchedule lr_schedule(const RunConfig& cfg);

}  // namespace bert::trainer
