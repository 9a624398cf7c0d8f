// CUDA backend of the trainer: the rank's GPU (by local rank), the ranks' gradient transport (NCCL
// between distinct GPUs, unique id through the bootstrap KV store; the host collective when ranks share a
// GPU: gradient_transport.h), CudaTrainStep (graph-captured micro-steps, fused LAMB on the
// run config's schedule) and eval on the same model without dropout. The host reads the device only
// in measure_loss() and evaluate(), which the loop calls at eval and log points.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "trainer/cuda/attention_choice.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/data_parallel.h"
#include "trainer/cuda/fp8_gemm.h"
#include "trainer/cuda/gradient_transport.h"
#include "trainer/cuda/host_data_parallel.h"
#include "trainer/cuda/train_step.h"
#include "formats/data_error.h"
#include "trainer/model/config.h"
#include "trainer/synthetic_batch.h"
#include "trainer/train_backend.h"

namespace bert::trainer {

std::string cuda_backend_problem() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  std::string problem;
  if (e != cudaSuccess) problem = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
  else if (n == 0) problem = "cudaGetDeviceCount: 0 devices";
  if (problem.empty()) return "";
  return "there is no CUDA device (" + problem + "); use run.backend: cpu on this machine";
}

std::string cuda_fp8_problem() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return "no CUDA device";
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) return "device " + std::to_string(d) + " cannot be queried";
    if (!cuda::has_fp8_matrix_units(prop.major, prop.minor))
      return "device " + std::to_string(d) + " (" + prop.name + ") is sm_" + std::to_string(prop.major) +
             std::to_string(prop.minor);
  }
  return "";
}

namespace {

int select_device(const dist::ProcessInfo& p) {
  int n = 0;
  BERT_CUDA_CHECK(cudaGetDeviceCount(&n));
  if (n == 1) return 0;  // one visible device per rank (CUDA_VISIBLE_DEVICES set per rank)
  if (p.local_rank < n) return p.local_rank;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  throw dist::DistError("local rank " + std::to_string(p.local_rank) + " of " + std::to_string(p.local_size) +
                        " ranks on this node, but only " + std::to_string(n) +
                        " CUDA devices are visible (CUDA_VISIBLE_DEVICES=" + (visible ? visible : "unset") +
                        "): run one rank per GPU");
}

// Every rank's GPU (its UUID), gathered through the host collective: rank r's 16 bytes in row r of a sum
// over rows the other ranks leave zero (small integers: exact in doubles).
std::vector<std::string> device_ids(dist::Collective& coll, int device) {
  cudaDeviceProp prop{};
  BERT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int world = coll.size();
  std::vector<double> rows(static_cast<size_t>(world) * 16, 0.0);
  for (int i = 0; i < 16; ++i)
    rows[static_cast<size_t>(coll.rank()) * 16 + static_cast<size_t>(i)] = static_cast<unsigned char>(prop.uuid.bytes[i]);
  coll.allreduce_sum(rows.data(), rows.size());
  std::vector<uint8_t> bytes(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) bytes[i] = static_cast<uint8_t>(rows[i]);
  return cuda::device_ids_of(bytes, world);
}

cuda::LambHyper lamb_hyper(const RunConfig& cfg) {
  cuda::LambHyper h;
  h.beta1 = static_cast<float>(cfg.lamb_beta_1);
  h.beta2 = static_cast<float>(cfg.lamb_beta_2);
  h.epsilon = static_cast<float>(cfg.lamb_epsilon);
  h.weight_decay = static_cast<float>(cfg.weight_decay_rate);
  h.max_grad_norm = 1.f;  // as optim::clip_factor
  h.schedule = lr_schedule(cfg);
  return h;
}

cuda::Fp8Options fp8_options(const RunConfig& cfg) {
  cuda::Fp8Options o;
  o.enabled = cfg.precision == Precision::fp8;
  o.amax_history = cfg.fp8_amax_history;
  o.margin = cfg.fp8_margin;
  return o;
}

cuda::CudaModelLimits model_limits(const RunConfig& cfg) {
  cuda::CudaModelLimits l;
  l.rows = cfg.batch_size;
  l.seq_len = cfg.max_seq_length;
  l.max_sequences = cfg.data_format == data::Format::packed ? 3 * cfg.batch_size : cfg.batch_size;  // packs: <= 3 sequences
  l.max_masked = l.max_sequences * cfg.max_predictions_per_seq;  // max_pred per sequence (shard_io)
  return l;
}

class CudaBackend final : public TrainBackend {
 public:
  explicit CudaBackend(const BackendContext& ctx)
      : cfg_(ctx.cfg), coll_(ctx.coll), sched_(lr_schedule(ctx.cfg)), device_(select_device(ctx.proc)) {
    BERT_CUDA_CHECK(cudaSetDevice(device_));
    cudaDeviceProp prop{};
    BERT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    device_name_ = prop.name;
    if (coll_.size() > 1) {
      const cuda::GradientTransport transport = cuda::choose_gradient_transport(device_ids(coll_, device_));
      if (transport == cuda::GradientTransport::host) {  // NCCL refuses two ranks on one GPU
        dp_ = std::make_unique<cuda::HostDataParallel>(coll_, ctx.layout.total);
        if (coll_.rank() == 0)
          std::fprintf(stderr, "[trainer] cuda backend: ranks share a GPU: gradients averaged through the host "
                               "collective (%s), not NCCL\n", coll_.transport());
      } else {
        dp_ = std::make_unique<cuda::NcclDataParallel>(ctx.proc, ctx.kv, "grads");
      }
      if (!cfg_.clip_after_allreduce && coll_.rank() == 0)
        std::fprintf(stderr, "[trainer] cuda backend: gradients are clipped after the allreduce (global norm of the "
                             "averaged gradients); optimizer.clip_after_allreduce: false applies to the cpu backend only\n");
    }
    cuda::TrainStepOptions opt;
    opt.lamb = lamb_hyper(cfg_);
    opt.dropout_seed = cfg_.seed;
    opt.rank = static_cast<uint32_t>(coll_.rank());
    opt.accumulation_steps = cfg_.gradient_accumulation_steps;
    limits_ = model_limits(cfg_);
    limits_.fp8 = fp8_options(cfg_);
    limits_.attention = cuda::attention_choice_from_env();  // UserError naming the variable on a bad value
    cuda::use_cudnn_attention(limits_.attention);           // and for cudnn in a build without it
    try {
      step_ = std::make_unique<cuda::CudaTrainStep>(ctx.layout, limits_, opt, dp_.get());
    } catch (const model::BatchError& e) {  // a model the kernels do not support
      throw model::ModelError(ctx.config_path + ": run.backend: cuda: " + e.what());
    } catch (const cuda::CudaError& e) {  // mostly: the batch does not fit the device memory
      throw RunConfigError(ctx.config_path + ": run.backend: cuda: cannot set up the model (batch.batch_size " +
                           std::to_string(cfg_.batch_size) + ", data.max_seq_length " +
                           std::to_string(cfg_.max_seq_length) + ") on device " + std::to_string(device_) + " (" +
                           device_name_ + "): " + e.what());
    }
  }

  void set_params(const std::vector<float>& params) override { step_->set_params(params); }

  bool step(int64_t step_index, const NextBatch& next, StepReport& out) override {
    const int ga = cfg_.gradient_accumulation_steps;
    int64_t sequences = 0;
    for (int micro = 0; micro < ga; ++micro) {
      if (!next(batch_)) return false;
      try {
        step_->step(batch_, static_cast<uint32_t>(step_index * ga + micro));
      } catch (const model::BatchError& e) {
        throw data::DataError(cfg_.train_dir + ": " + e.what());
      }
      sequences += batch_.num_sequences;
    }
    out.sequences = sequences;
    out.has_loss = false;
    loss_pending_ = true;
    return true;
  }

  void finish_step(int64_t, bool) override {}  // LAMB ran on the device inside step()

  void measure_loss(StepReport& out) override {
    read_step_stats();
    out.loss = local_loss_;
    out.grad_norm = grad_norm_;  // global: LAMB clips the allreduced gradients
    out.has_loss = true;
  }

  double evaluate(const data::EvalSet& eval) override {
    read_step_stats();  // the eval forward overwrites the training step's losses
    cuda::CudaModel& m = step_->model();
    double counts[2] = {0, 0};
    for (const data::Batch& b : eval.batches) {
      // eval batches may be larger than the training buffers: chunks of at most limits_.rows rows
      for (int first = 0; first < b.rows; first += limits_.rows) {
        const int rows = std::min(limits_.rows, b.rows - first);
        try {
          if (first == 0 && rows == b.rows) {
            m.load_batch(b);
          } else {
            m.load_batch(slice_rows(b, first, rows));
          }
        } catch (const model::BatchError& e) {
          throw data::DataError(cfg_.eval_file + ": " + e.what());
        }
        m.forward(model::DropoutContext{}, nullptr, /*training=*/false);
        const model::StepStats st = m.stats();
        counts[0] += static_cast<double>(st.mlm_correct);
        counts[1] += static_cast<double>(st.masked);
      }
    }
    coll_.allreduce_sum(counts, 2);
    return counts[1] > 0 ? counts[0] / counts[1] : 0.0;
  }

  std::vector<float> params() override { return step_->model().params(); }
  double learning_rate(int64_t step_index) const override { return sched_.at(step_index); }
  std::string describe() const override {
    return "cuda " + to_string(cfg_.precision) + ", device " + std::to_string(device_) + " (" + device_name_ +
           "), attention " + (step_->model().cudnn_attention() ? "cudnn" : "own");
  }

 private:
  // The last training step's local loss and the global gradient norm, read once per step at most.
  void read_step_stats() {
    if (!loss_pending_) return;
    local_loss_ = step_->stats().loss;  // synchronises the stream
    float norm = 0;
    BERT_CUDA_CHECK(cudaMemcpy(&norm, step_->lamb().device_grad_norm(), sizeof(norm), cudaMemcpyDeviceToHost));
    grad_norm_ = norm;
    loss_pending_ = false;
  }

  const RunConfig& cfg_;
  dist::Collective& coll_;
  optim::LrSchedule sched_;
  int device_ = 0;
  std::string device_name_;
  cuda::CudaModelLimits limits_;
  std::unique_ptr<cuda::DataParallel> dp_;
  std::unique_ptr<cuda::CudaTrainStep> step_;
  data::Batch batch_;
  bool loss_pending_ = false;
  double local_loss_ = 0, grad_norm_ = 0;
};

}  // namespace

std::unique_ptr<TrainBackend> make_cuda_backend(const BackendContext& ctx) { return std::make_unique<CudaBackend>(ctx); }

}  // namespace bert::trainer
