// What the trainer's main loop (train_loop.cpp) needs from a model backend: one optimizer step from
// gradient_accumulation_steps micro-batches (allreduce, clipping and LAMB included), the step's loss,
// pooled eval accuracy and the final weights. The loop owns everything else (bootstrap, MLPerf log,
// data, eval cadence, stopping, exit codes), so both backends behave the same from the outside.
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

struct StepOutcome {
  int64_t sequences = 0;   // global sequences trained in this step (all ranks)
  bool stop = false;       // some rank was asked to stop (SIGTERM)
  // Loss (mean over micro-batches and ranks) and gradient norm before clipping. The CPU backend
  // measures them every step; the CUDA backend only when the loop calls sync_loss().
  bool has_loss = false;
  double loss = 0, grad_norm = 0;
};

class TrainBackend {
 public:
  virtual ~TrainBackend() = default;

  // Weights to train from (flat layout of model::ParamLayout).
  virtual void set_params(const std::vector<float>& params) = 0;
  // One optimizer update of 0-based index `step_index`; false when `next` ran dry first (no update).
  // Collective: every rank calls it for the same step.
  virtual bool step(int64_t step_index, const NextBatch& next, StepOutcome& out) = 0;
  // Fills out.loss / out.grad_norm for the last step when step() did not (waits for the device).
  // Collective: every rank calls it after the same step.
  virtual void sync_loss(StepOutcome& out) = 0;
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

// The learning-rate schedule of the run config (both backends; the CUDA LAMB evaluates the same
// formula on the device).
optim::LrSchedule lr_schedule(const RunConfig& cfg);

}  // namespace bert::trainer
