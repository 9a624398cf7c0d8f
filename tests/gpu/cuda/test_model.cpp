// A whole training step of the CUDA model against the CPU trainer (bert::cpu::BertCpu) with the same
// parameters, batch and dropout streams: loss, every parameter gradient, and the loss after one LAMB
// step (bert::optim::Lamb on the CPU, FusedLamb on the GPU). Padded and packed batches; tiny and base.
//
// Tolerance (bf16 activations and GEMM operands through the whole network, fp32 accumulation):
// losses within 2% relative; the full gradient vector within 5% relative L2, each tensor with a
// non-negligible gradient within 15%. fp32-vs-fp32 would be ~1e-5; these bounds are what bf16 compute
// allows and still catch any wrong index, missing term or wrong dropout mask (those give O(1) errors).
#include <algorithm>
#include <cmath>

#include "tests/gpu/cuda/gpu_test.h"
#include "tests/gpu/cuda/test_batches.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/lamb.h"
#include "trainer/cuda/lamb_tensors.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"
#include "trainer/optim/lamb.h"

using namespace bert::cuda;
using namespace bert::cuda::test;
using bert::data::Batch;

namespace {

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-12); }

void check_step(const std::string& size, int vocab, const Batch& batch, uint64_t seed) {
  CAPTURE(size);
  CAPTURE(batch.packed);
  auto cfg = bert::model::bert_config_for_size(*bert::parse_enum(size, bert::model::kModelSizeNames));
  cfg.vocab_size = vocab;
  cfg.max_position = batch.seq_len;
  const auto layout = bert::model::make_param_layout(cfg);
  std::vector<float> params;
  bert::model::init_params(layout, seed, params);

  bert::cpu::BertCpu cpu(layout);
  const bert::model::DropoutContext cd{true, seed + 1, 0, 3};
  const auto cs = cpu.forward(batch, params.data(), cd);
  std::vector<float> cgrad(layout.total, 0.f);
  cpu.backward(params.data(), cgrad.data(), 1.f);

  CudaModelLimits lim{batch.rows, batch.seq_len, batch.num_sequences, batch.num_masked()};
  CudaModel gpu(layout, lim);
  gpu.set_params(params);
  gpu.zero_grads();
  gpu.load_batch(batch);
  gpu.forward(cd);
  const auto gs = gpu.stats();
  gpu.backward(1.f);
  const auto ggrad = gpu.grads();

  CHECK(rel(gs.mlm_loss, cs.mlm_loss) < 2e-2);
  CHECK(rel(gs.nsp_loss, cs.nsp_loss) < 2e-2);
  CHECK(gs.masked == cs.masked);
  CHECK(gs.sequences == cs.sequences);
  CHECK(rel_l2(ggrad, cgrad) < 5e-2);
  check_each_tensor(layout, ggrad, cgrad, 0.15);

  // One LAMB step on each side, then the loss of the same batch without dropout.
  LambHyper h;
  h.schedule.base_lr = 1e-3;
  h.schedule.total_steps = 100;
  bert::optim::Lamb lamb(layout, bert::optim::LambHyper{h.beta1, h.beta2, h.epsilon, h.weight_decay});
  const double norm = bert::optim::global_grad_norm(layout, cgrad.data());
  lamb.step(params.data(), cgrad.data(), lamb_learning_rate(h, 0), bert::optim::clip_factor(norm, 1.0));
  FusedLamb fl(lamb_tensors(layout), h);
  DeviceBuffer<float> m(layout.total), v(layout.total);
  BERT_CUDA_CHECK(cudaMemset(m.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(v.get(), 0, layout.total * sizeof(float)));
  fl.step(gpu.params_f32(), gpu.grads_f32(), m.get(), v.get(), gpu.params_bf16(), gpu.stream());
  const auto cs2 = cpu.evaluate(batch, params.data());
  gpu.forward(bert::model::DropoutContext{});
  const auto gs2 = gpu.stats();
  CHECK(rel(gs2.loss, cs2.loss) < 2e-2);
  CHECK(gs2.loss < cs.loss + 0.5);  // sanity: the step did not blow up
}

}  // namespace

TEST_CASE("tiny BERT step, padded rows") {
  check_step("tiny", 1000, make_batch(128, {{128}, {90}, {33}, {7}}, 1000, 1), 11);
}

TEST_CASE("tiny BERT step, packed rows (up to 3 sequences per pack)") {
  check_step("tiny", 30522, make_batch(128, {{60, 68}, {20, 50, 40}, {128}}, 30522, 2), 12);
}

TEST_CASE("base BERT step, packed rows, seq 512") {
  check_step("base", 30522, make_batch(512, {{200, 300}, {512}}, 30522, 3), 13);
}

TEST_CASE("a batch that does not fit is a model::BatchError") {
  auto cfg = bert::model::bert_config_for_size(bert::model::ModelSize::Tiny);
  cfg.vocab_size = 1000;
  cfg.max_position = 128;
  const auto layout = bert::model::make_param_layout(cfg);
  CudaModel gpu(layout, CudaModelLimits{2, 128, 2, 40});
  auto b = make_batch(128, {{100}, {50}}, 1000, 4);
  b.input_ids[5] = 5000;
  CHECK_THROWS_AS(gpu.load_batch(b), bert::model::BatchError);
  auto big = make_batch(128, {{100}, {50}, {20}}, 1000, 5);
  CHECK_THROWS_AS(gpu.load_batch(big), bert::model::BatchError);
}
