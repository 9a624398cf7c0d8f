// run.precision fp8 on the whole model (trainer/cuda/fp8_dense.h inside CudaModel / CudaTrainStep):
//   1. the scaling state after a step against the CPU reference of the recipe: the weights' amaxes ==
//      max |W| of the fp32 master weights (exactly: the cast reads them), every tensor's amax positive
//      and finite, and the update == trainer/model/fp8_scaling.h's fp8_update on the host;
//   2. an FP8 training step against the bf16 step (same weights, batch and dropout masks), with scales
//      calibrated by one step first (the recipe's steady state: the scales come from the step before);
//   3. no NaN/Inf through 1,000 graph-captured LAMB steps of tiny and of base BERT, and the loss falls.
//
// Tolerances. Derived first from the formats: E4M3 keeps 3 mantissa bits (relative rounding error up
// to 2^-4, ~3.6% rms), E5M2 2 (~7.2% rms); one GEMM of E4M3 operands ~5% rms relative error of its
// output, a gradient GEMM (E5M2 x E4M3) ~8%; the residual stream carries the gradient around each block
// unquantized, so errors add in quadrature rather than compound. That gave 2% (losses), 20% / 25%
// (whole gradient, tiny / base), 35% (each tensor), cosine 0.97. Measured on an H100 at f6fa687: losses
// within 0.05%, whole gradient 0.0084 and 0.0073 (tiny padded / packed) and 0.0706 (base), cosine
// >= 0.9975. The bounds now: whole gradient 3% (tiny) / 15% (base), cosine 0.99, MLM loss 1%: 2-20x
// the measured values (the spread between runs is not measured yet); the NSP loss 2% and each tensor
// 35% as derived (not measured apart: the message prints both losses now). A wrong scale, a missing transpose or a wrong
// layout gives O(1) errors.
#include <algorithm>
#include <cmath>

#include "tests/gpu/cuda/fp8_test.h"
#include "tests/gpu/cuda/gpu_test.h"
#include "tests/gpu/cuda/test_batches.h"
#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/fp8_dense.h"
#include "trainer/cuda/train_step.h"
#include "trainer/model/config.h"
#include "trainer/model/fp8_scaling.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"

using namespace bert::cuda;
using namespace bert::cuda::test;
using bert::data::Batch;

namespace {

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-12); }

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

bert::model::ParamLayout layout_for(const std::string& size, int vocab, int seq_len) {
  auto cfg = bert::model::bert_config_for_size(*bert::parse_enum(size, bert::model::kModelSizeNames));
  cfg.vocab_size = vocab;
  cfg.max_position = seq_len;
  return bert::model::make_param_layout(cfg);
}

CudaModelLimits limits(const Batch& b, bool fp8) {
  CudaModelLimits lim{b.rows, b.seq_len, b.num_sequences, b.num_masked()};
  lim.fp8.enabled = fp8;
  return lim;
}

float max_abs(const std::vector<float>& p, size_t offset, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(p[offset + i]));
  return m;
}

// One step of model m: zero, forward, backward; the loss stats.
bert::model::StepStats step(CudaModel& m, const Batch& b, const bert::model::DropoutContext& d) {
  m.zero_grads();
  m.load_batch(b);
  m.forward(d);
  const auto s = m.stats();
  m.backward(1.f);
  return s;
}

void check_fp8_step(const std::string& size, int vocab, const Batch& batch, uint64_t seed, double whole_tol) {
  CAPTURE(size);
  CAPTURE(batch.packed);
  const auto layout = layout_for(size, vocab, batch.seq_len);
  std::vector<float> params;
  bert::model::init_params(layout, seed, params);
  const bert::model::DropoutContext d{true, seed + 1, 0, 3};

  CudaModel ref(layout, limits(batch, false)), fp8(layout, limits(batch, true));
  ref.set_params(params);
  fp8.set_params(params);
  Fp8DenseLayers& f = *fp8.fp8();
  Fp8Scaling& sc = f.scaling();
  const int n = sc.count();

  // 1. the weights' amaxes, recorded by set_params' cast
  std::vector<float> h = sc.history();
  for (size_t l = 0; l < layout.layer.size(); ++l) {
    const auto& o = layout.layer[l];
    const int li = static_cast<int>(l);
    const size_t HH = static_cast<size_t>(layout.config.hidden) * layout.config.hidden;
    const size_t HI = static_cast<size_t>(layout.config.hidden) * layout.config.intermediate;
    const float qkv = std::max({max_abs(params, o.q_w, HH), max_abs(params, o.k_w, HH), max_abs(params, o.v_w, HH)});
    CHECK(h[static_cast<size_t>(f.tensor(li, Fp8DenseLayers::kQkvW))] == qkv);
    CHECK(h[static_cast<size_t>(f.tensor(li, Fp8DenseLayers::kAoW))] == max_abs(params, o.ao_w, HH));
    CHECK(h[static_cast<size_t>(f.tensor(li, Fp8DenseLayers::kFc1W))] == max_abs(params, o.i_w, HI));
    CHECK(h[static_cast<size_t>(f.tensor(li, Fp8DenseLayers::kFc2W))] == max_abs(params, o.o_w, HI));
  }
  // a calibration step: every tensor cast, every amax positive and finite; the update as on the host
  step(fp8, batch, d);
  h = sc.history();
  std::vector<float> scale = sc.scales(), inv = sc.scale_invs();
  for (int t = 0; t < n; ++t) {
    CAPTURE(t);
    CHECK(h[static_cast<size_t>(t)] > 0.f);
    CHECK(std::isfinite(h[static_cast<size_t>(t)]));
    bert::model::fp8_update(h.data() + t, sc.history_length(), static_cast<size_t>(n), &scale[static_cast<size_t>(t)],
                            &inv[static_cast<size_t>(t)], sc.scaled_max()[static_cast<size_t>(t)]);
  }
  f.end_step(fp8.params_f32(), fp8.params_bf16(), fp8.stream());  // weights unchanged: only the scales move
  bert::cuda::test::sync();
  CHECK(sc.scales() == scale);
  CHECK(sc.scale_invs() == inv);
  std::vector<float> dh = sc.history();
  for (int t = 0; t < n; ++t) dh[static_cast<size_t>(t)] = 0.f;  // row 0: the weights' amaxes again, cast after the update
  CHECK(dh == std::vector<float>(h.begin(), h.end()));

  // 2. FP8 step vs bf16 step
  const auto rs = step(ref, batch, d);
  const auto fs = step(fp8, batch, d);
  const std::vector<float> rg = ref.grads(), fg = fp8.grads();
  CHECK(all_finite(fg));
  CHECK(rel(fs.mlm_loss, rs.mlm_loss) < 1e-2);
  CHECK(rel(fs.nsp_loss, rs.nsp_loss) < 2e-2);
  const double whole = rel_l2(fg, rg), cos = cosine(fg, rg);
  MESSAGE("fp8 vs bf16 (" << size << "): loss " << fs.loss << " vs " << rs.loss << " (MLM " << fs.mlm_loss << " vs "
                          << rs.mlm_loss << ", NSP " << fs.nsp_loss << " vs " << rs.nsp_loss << "), gradient rel L2 "
                          << whole << ", cosine " << cos);
  CHECK(whole < whole_tol);
  CHECK(cos > 0.99);
  check_each_tensor(layout, fg, rg, 0.35);
}

void check_stability(const std::string& size, int vocab, int seq_len, const std::vector<std::vector<int>>& rows,
                     int steps) {
  CAPTURE(size);
  const auto layout = layout_for(size, vocab, seq_len);
  std::vector<Batch> batches;
  for (uint64_t i = 0; i < 4; ++i) batches.push_back(make_batch(seq_len, rows, vocab, 100 + i));
  int max_seqs = 0, max_masked = 0;
  for (const auto& b : batches) {
    max_seqs = std::max(max_seqs, b.num_sequences);
    max_masked = std::max(max_masked, b.num_masked());
  }
  CudaModelLimits lim{static_cast<int>(rows.size()), seq_len, max_seqs, max_masked};
  lim.fp8.enabled = true;
  TrainStepOptions opt;
  opt.lamb.schedule.base_lr = size == "tiny" ? 2e-3 : 5e-4;
  opt.lamb.schedule.warmup_steps = steps / 10;
  opt.lamb.schedule.total_steps = steps;
  opt.dropout_seed = 5;
  CudaTrainStep trainer(layout, lim, opt);
  std::vector<float> params;
  bert::model::init_params(layout, 9, params);
  trainer.set_params(params);
  double first = 0, last = 0;
  for (int s = 0; s < steps; ++s) {
    trainer.step(batches[static_cast<size_t>(s) % batches.size()], static_cast<uint32_t>(s));
    if (s % 100 == 0 || s + 1 == steps) {
      const double loss = trainer.stats().loss;
      CAPTURE(s);
      REQUIRE(std::isfinite(loss));
      if (s == 0) first = loss;
      last = loss;
    }
  }
  Fp8Scaling& sc = trainer.model().fp8()->scaling();
  MESSAGE(size << " fp8, " << steps << " steps: loss " << first << " -> " << last);
  CHECK(all_finite(trainer.model().params()));
  CHECK(all_finite(trainer.model().grads()));
  CHECK(all_finite(sc.history()));
  const std::vector<float> scales = sc.scales();
  CHECK(all_finite(scales));
  CHECK(std::all_of(scales.begin(), scales.end(), [](float x) { return x > 0.f; }));
  CHECK(last < first);  // four batches seen 250 times each: the model fits them
}

}  // namespace

TEST_CASE("fp8: tiny BERT step vs the bf16 step, padded rows; the recipe's state against the host") {
  require_fp8_device();
  check_fp8_step("tiny", 1000, make_batch(128, {{128}, {90}, {33}, {7}}, 1000, 1), 11, 0.03);
}

TEST_CASE("fp8: tiny BERT step vs the bf16 step, packed rows") {
  require_fp8_device();
  check_fp8_step("tiny", 30522, make_batch(128, {{60, 68}, {20, 50, 40}, {128}, {100}}, 30522, 2), 12, 0.03);
}

TEST_CASE("fp8: base BERT step vs the bf16 step, packed rows, seq 512") {
  require_fp8_device();
  check_fp8_step("base", 30522, make_batch(512, {{200, 300}, {512}}, 30522, 3), 13, 0.15);
}

TEST_CASE("fp8: no NaN/Inf through 1,000 steps of tiny BERT, and the loss falls") {
  require_fp8_device();
  check_stability("tiny", 1000, 128, {{128}, {60, 68}, {20, 50, 40}, {100}}, 1000);
}

TEST_CASE("fp8: no NaN/Inf through 1,000 steps of base BERT (seq 512, packed), and the loss falls") {
  require_fp8_device();
  check_stability("base", 30522, 512, {{200, 300}, {512}, {100, 150, 250}, {400}}, 1000);
}

TEST_CASE("fp8: a model FP8 cannot run (seq_len off the 16 grid) is a model::BatchError naming run.precision") {
  require_fp8_device();
  const auto layout = layout_for("tiny", 1000, 120);
  CudaModelLimits lim{2, 120, 2, 10};
  lim.fp8.enabled = true;
  CHECK_THROWS_WITH_AS(CudaModel(layout, lim), doctest::Contains("run.precision fp8"), bert::model::BatchError);
}
