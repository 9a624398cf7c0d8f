// The CPU backend: BertCpu forward/backward per micro-batch, gradient allreduce over the CPU
// collective (clipping before or after it, optimizer.clip_after_allreduce), optim::Lamb in fp32.
// Where the collective shards updates (shared memory on one node, or within each node of several),
// each rank sums, clips and updates only its run of whole tensors (optim/shards.h) and the ranks then
// gather the weights: the same result as every rank updating everything, for a share of LAMB's time
// and memory.
// run.precision bf16: the model's GEMMs take bf16 operands (oneDNN, gemm_bf16.h), and the activations
// only GEMMs and GELU read are kept in bf16 (bert_cpu.cpp); weights, gradients, the residual stream and
// LAMB stay fp32.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "trainer/cpu/bert_cpu.h"
#include "trainer/cpu/bf16_copy.h"
#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"
#include "trainer/optim/lamb.h"
#include "trainer/optim/shards.h"
#include "trainer/optim/schedule.h"
#include "trainer/train_backend.h"
#include "trainer/train_loop.h"

namespace bert::trainer {
namespace {

// run.precision as the CPU model computes it (check_backend_available refused the others).
cpu::MatmulPrecision matmul_precision(Precision p) {
  return p == Precision::bf16 ? cpu::MatmulPrecision::bf16 : cpu::MatmulPrecision::fp32;
}

class CpuBackend final : public TrainBackend {
 public:
  explicit CpuBackend(const BackendContext& ctx)
      : cfg_(ctx.cfg),
        layout_(ctx.layout),
        grads_(ctx.layout.total, 0.0f),
        model_(ctx.layout, matmul_precision(ctx.cfg.precision)),
        coll_(ctx.coll),
        sharded_(coll_.size() > 1 && coll_.shards_updates()),
        group_(sharded_ ? coll_.update_group() : dist::Collective::UpdateGroup{}),
        shards_(optim::shard_tensors(ctx.layout, group_.parts)),
        lamb_(ctx.layout, optim::LambHyper{cfg_.lamb_beta_1, cfg_.lamb_beta_2, cfg_.lamb_epsilon, cfg_.weight_decay_rate},
              shards_.first_tensor[static_cast<size_t>(group_.part)],
              shards_.first_tensor[static_cast<size_t>(group_.part) + 1]),
        sched_(lr_schedule(ctx.cfg)) {}

  void set_params(const std::vector<float>& params) override {
    params_ = params;
    if (cfg_.precision == Precision::bf16) params16_.refresh(params_.data(), params_.size());
  }

  bool step(int64_t step_index, const NextBatch& next, StepOutcome& out) override {
    const int ga = cfg_.gradient_accumulation_steps;
    double loss_sum = 0, seqs = 0;
    for (int micro = 0; micro < ga; ++micro) {
      if (!next(batch_)) return false;
      model::DropoutContext d{true, cfg_.seed, static_cast<uint32_t>(coll_.rank()),
                            static_cast<uint32_t>(step_index * ga + micro)};
      const model::StepStats st = model_.forward(batch_, params_.data(), d);
      // the first micro-batch sets the gradients (no zeroing pass first), the others add to them
      model_.backward(params_.data(), grads_.data(), 1.0f / static_cast<float>(ga),
                      micro == 0 ? cpu::BertCpu::Grads::overwrite : cpu::BertCpu::Grads::add);
      loss_sum += st.loss / ga;
      seqs += st.sequences;
    }
    const int world = coll_.size();
    // what multiplies each summed gradient in LAMB: the clipping factor, and 1/world for the average
    double factor = 1.0;
    if (world > 1) {
      float clip = 1.0f;  // this rank's, before the sum (the reference's order)
      if (!cfg_.clip_after_allreduce) {
        out.grad_norm = optim::global_grad_norm(layout_, grads_.data());
        clip = static_cast<float>(optim::clip_factor(out.grad_norm));
      }
      if (sharded_) {
        coll_.reduce_scatter_sum(grads_.data(), shards_.bounds, clip);  // scaled as it is copied
      } else {
        if (clip != 1.0f)
          for (float& g : grads_) g *= clip;
        coll_.allreduce_sum(grads_.data(), grads_.size());
      }
      factor = 1.0 / world;
      if (cfg_.clip_after_allreduce) {
        // sharded: the parts' sums of one copy of the summed gradients (every copy holds the same bits)
        double sq = group_.copy != 0 ? 0.0
                                     : optim::sum_squares(grads_.data() + shards_.begin(group_.part),
                                                          shards_.end(group_.part) - shards_.begin(group_.part));
        if (sharded_) coll_.allreduce_sum(&sq, 1);
        out.grad_norm = std::sqrt(sq) * factor;
        factor *= optim::clip_factor(out.grad_norm);
      }
    } else {
      out.grad_norm = optim::global_grad_norm(layout_, grads_.data());
      factor = optim::clip_factor(out.grad_norm);
    }
    // a rank's norm before the allreduce is its own: every rank skips the update if any saw it non-finite
    double stats[4] = {loss_sum, seqs, g_stop_requested.load() ? 1.0 : 0.0, std::isfinite(out.grad_norm) ? 0.0 : 1.0};
    coll_.allreduce_sum(stats, 4);
    out.loss = stats[0] / world;
    out.sequences = static_cast<int64_t>(stats[1]);
    out.stop = stats[2] > 0;
    out.has_loss = true;
    if (!std::isfinite(out.loss) || stats[3] > 0) {  // caller stops; no update
      if (std::isfinite(out.grad_norm)) out.grad_norm = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    // u into the gradients' buffer: the next step's first micro-batch overwrites it
    lamb_.step(params_.data(), grads_.data(), sched_.at(step_index), factor, params16_.data(), grads_.data());
    if (sharded_) {
      coll_.allgather(params_.data(), shards_.byte_bounds(sizeof(float)));
      if (params16_.data() != nullptr) coll_.allgather(params16_.data(), shards_.byte_bounds(sizeof(uint16_t)));
    }
    return true;
  }

  void sync_loss(StepOutcome&) override {}  // step() measured it

  double evaluate(const data::EvalSet& eval) override {
    double counts[2] = {0, 0};
    for (const data::Batch& b : eval.batches) {
      const model::StepStats st = model_.evaluate(b, params_.data());
      counts[0] += static_cast<double>(st.mlm_correct);
      counts[1] += static_cast<double>(st.masked);
    }
    coll_.allreduce_sum(counts, 2);
    return counts[1] > 0 ? counts[0] / counts[1] : 0.0;
  }

  std::vector<float> params() override { return params_; }
  double learning_rate(int64_t step_index) const override { return sched_.at(step_index); }
  std::string describe() const override {
    const std::string fp32 = std::string("fp32 (") + cpu::blas_library_name(cpu::blas_library()) + " sgemm)";
    return "cpu " + (cfg_.precision == Precision::bf16 ? std::string("bf16 GEMMs (oneDNN)") : fp32) + ", threads " +
           std::to_string(omp_get_max_threads()) +
           (sharded_ ? ", LAMB sharded over " + std::to_string(group_.parts) + " ranks" +
                           (group_.copies > 1 ? " per node" : "")
                     : std::string());
  }

 private:
  const RunConfig& cfg_;
  const model::ParamLayout& layout_;
  std::vector<float> params_, grads_;
  cpu::Bf16Copy params16_;  // bf16 runs: the weights' bf16 copy, rounded by LAMB once per step
  cpu::BertCpu model_;
  dist::Collective& coll_;
  // this rank sums and updates its run of tensors only, then its group gathers them; the same on every
  // rank of the job (the transport is), as the collectives it adds must be, even where a node's group
  // has one rank
  bool sharded_;
  dist::Collective::UpdateGroup group_;  // the ranks sharing one copy of the update; `part`: this rank's run
  optim::Shards shards_;                 // one run per rank of the group, or one run of all tensors
  optim::Lamb lamb_;
  optim::LrSchedule sched_;
  data::Batch batch_;
};

}  // namespace

std::unique_ptr<TrainBackend> make_cpu_backend(const BackendContext& ctx) { return std::make_unique<CpuBackend>(ctx); }

}  // namespace bert::trainer
