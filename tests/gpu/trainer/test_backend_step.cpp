// The trainer's two backends (make_backend, as `trainer` builds them from a run config) take the same
// optimizer steps: tiny BERT, the local recipe's shape (vocab 1024, seq 128, max_pred 20, batch 16,
// lr 1e-2, no warmup so the first update moves the weights), same initial weights, batches and
// dropout streams. Tolerances of trainer/cuda/README.md (bf16 activations and operands, fp32
// accumulation and master weights): losses within 2 %, gradient norm within 5 %. The weights after
// the updates are judged by the CPU model itself (fp32, no dropout): the loss of the GPU-updated
// weights within 2 % of the CPU-updated ones, and the update directions (new - initial weights)
// with cosine similarity > 0.9 (the first LAMB steps are close to sign(g), so single elements with
// near-zero gradients may flip; the direction as a whole may not).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "trainer/cpu/bert_cpu.h"
#include "trainer/comm/comm.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/synthetic_batch.h"
#include "trainer/step_agreement.h"
#include "trainer/train_backend.h"

using namespace bert;
using namespace bert::trainer;

namespace {

constexpr int kRows = 16, kSeq = 128, kMaxPred = 20, kVocab = 1024;

RunConfig recipe(Backend backend, int accumulation) {
  RunConfig c;
  c.model_size = model::ModelSize::Tiny;
  c.vocab_size = kVocab;
  c.max_seq_length = kSeq;
  c.max_predictions_per_seq = kMaxPred;
  c.data_format = bert::data::Format::varlength;
  c.batch_size = kRows;
  c.gradient_accumulation_steps = accumulation;
  c.learning_rate = 1e-2;
  c.max_steps = 100;
  c.warmup_steps = 0;
  c.seed = 3;
  c.backend = backend;
  c.precision = default_precision(backend);
  c.threads = 2;
  return c;
}

struct Run {
  std::vector<double> losses, grad_norms;
  std::vector<float> params;
  double eval_accuracy = 0;
};

// `updates` optimizer steps over `batches` (consumed in order), then the pooled eval accuracy.
Run train(const RunConfig& cfg, const model::ParamLayout& layout, const std::vector<float>& init,
          const std::vector<data::Batch>& batches, int updates, const data::EvalSet& eval) {
  const dist::ProcessInfo proc;  // one process, no PMI
  std::unique_ptr<dist::KVStore> kv = dist::make_kv_store(proc, "");
  std::unique_ptr<dist::Collective> coll = dist::make_cpu_collective(proc, *kv);
  const std::string path = std::string("test ") + backend_name(cfg.backend) + " run config";
  const BackendContext ctx{cfg, path, layout, proc, *kv, *coll};
  std::unique_ptr<TrainBackend> backend = make_backend(ctx);
  backend->set_params(init);
  size_t next = 0;
  const NextBatch feed = [&](data::Batch& b) {
    if (next == batches.size()) return false;
    b = batches[next++];
    return true;
  };
  Run r;
  for (int i = 0; i < updates; ++i) {
    StepReport local;
    REQUIRE(backend->step(i, feed, local));
    StepAgreement out = agree_on_step(*coll, local, false);  // as the training loop
    backend->finish_step(i, out.all_finite);
    CHECK(out.sequences == static_cast<int64_t>(cfg.gradient_accumulation_steps) * kRows);
    if (!out.has_loss) agree_on_loss(*coll, *backend, out);
    r.losses.push_back(out.loss);
    r.grad_norms.push_back(out.grad_norm);
  }
  r.eval_accuracy = backend->evaluate(eval);
  r.params = backend->params();
  return r;
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-12); }

double cosine_of_updates(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& init) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < init.size(); ++i) {
    const double da = static_cast<double>(a[i]) - init[i], db = static_cast<double>(b[i]) - init[i];
    ab += da * db;
    aa += da * da;
    bb += db * db;
  }
  REQUIRE(aa > 0);
  REQUIRE(bb > 0);
  return ab / std::sqrt(aa * bb);
}

void compare_backends(int accumulation, int updates) {
  const RunConfig cpu_cfg = recipe(Backend::Cpu, accumulation), gpu_cfg = recipe(Backend::Cuda, accumulation);
  model::BertConfig mc = model::bert_config_for_size(model::ModelSize::Tiny);
  mc.vocab_size = kVocab;
  mc.max_position = std::max(mc.max_position, kSeq);
  const model::ParamLayout layout = model::make_param_layout(mc);
  std::vector<float> init;
  model::init_params(layout, cpu_cfg.seed, init);

  // distinct batches per micro-step; the eval set has 2.5 training batches' rows in one batch
  // (the CUDA backend evaluates it in chunks of its training buffers)
  std::vector<data::Batch> batches;
  const int micro = accumulation * updates;
  const data::Batch all = make_synthetic_batch(kRows * micro, kSeq, kMaxPred, kVocab, 17);
  for (int i = 0; i < micro; ++i) batches.push_back(slice_rows(all, i * kRows, kRows));
  data::EvalSet eval;
  eval.batches.push_back(make_synthetic_batch(kRows * 5 / 2, kSeq, kMaxPred, kVocab, 99));
  eval.num_sequences = eval.batches[0].num_sequences;
  eval.num_masked = eval.batches[0].num_masked();

  const Run c = train(cpu_cfg, layout, init, batches, updates, eval);
  const Run g = train(gpu_cfg, layout, init, batches, updates, eval);

  for (int i = 0; i < updates; ++i) {
    CAPTURE(i);
    MESSAGE("update " << i << ": loss CPU " << c.losses[i] << " GPU " << g.losses[i] << ", grad norm CPU "
                      << c.grad_norms[i] << " GPU " << g.grad_norms[i]);
    if (accumulation == 1) CHECK(rel(g.losses[i], c.losses[i]) < 2e-2);  // GPU: last micro-batch's loss
    CHECK(rel(g.grad_norms[i], c.grad_norms[i]) < 5e-2);
  }
  cpu::BertCpu judge(layout);
  const double loss_cpu_weights = judge.evaluate(batches.back(), c.params.data()).loss;
  const double loss_gpu_weights = judge.evaluate(batches.back(), g.params.data()).loss;
  const double initial = judge.evaluate(batches.back(), init.data()).loss;
  const double cos = cosine_of_updates(g.params, c.params, init);
  MESSAGE("last batch loss (CPU model, no dropout): initial " << initial << ", CPU-trained " << loss_cpu_weights
                                                              << ", GPU-trained " << loss_gpu_weights
                                                              << "; update cosine " << cos << "; eval accuracy CPU "
                                                              << c.eval_accuracy << " GPU " << g.eval_accuracy);
  CHECK(rel(loss_gpu_weights, loss_cpu_weights) < 2e-2);
  CHECK(loss_cpu_weights != initial);  // the updates moved the weights (lr > 0 from update 0)
  CHECK(cos > 0.9);
  CHECK(std::abs(g.eval_accuracy - c.eval_accuracy) < 0.02);
}

}  // namespace

TEST_CASE("trainer backends: one CUDA optimizer step == one CPU optimizer step") { compare_backends(1, 1); }

// Four updates: the CUDA graph of the whole step is captured at the third (two eager warm-up steps).
TEST_CASE("trainer backends: four steps, the CUDA ones replayed from the captured graph") { compare_backends(1, 4); }

// Gradient accumulation 2: first and last micro-batches are separate graphs, captured at update 3.
TEST_CASE("trainer backends: gradient accumulation 2, four updates") { compare_backends(2, 4); }
