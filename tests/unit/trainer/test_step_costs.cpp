// The per-op FLOP and byte counts of a step (trainer/model/step_costs.h) against figures worked out by
// hand for BERT-Large (H 1024, I 4096, V 30522, 24 layers, 16 heads): one full 512-token sequence,
// 76 masked tokens, 10^8 optimizer floats.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>

#include "trainer/model/config.h"
#include "trainer/model/step_costs.h"

namespace bert::model {
namespace {

const OpCost& cost(const StepCosts& k, StepOp op) { return k[static_cast<size_t>(op)]; }

StepCosts large_512() {
  const StepShape s{.tokens = 512, .sequences = 1, .masked = 76, .sum_len_sq = 512.0 * 512.0, .params = 100000000};
  return step_costs(bert_config_for_size(bert::model::ModelSize::Large), s);
}

}  // namespace

TEST_CASE("step FLOPs: 3 x the forward matmuls, BERT-Large, one 512-token sequence") {
  const StepCosts k = large_512();
  // 3 x [24 x (512 x 2 x (4H² + 2HI) + 4H·512²) + 76 x (2H² + 2HV) + (2H² + 4H)]
  CHECK(step_flop(k) == doctest::Approx(1019758866432.0).epsilon(1e-12));
  CHECK(cost(k, StepOp::QkvFwd).flop == doctest::Approx(77309411328.0).epsilon(1e-12));   // 24 x 2·512·H·3H
  CHECK(cost(k, StepOp::QkvBwd).flop == doctest::Approx(2 * 77309411328.0).epsilon(1e-12));
  CHECK(cost(k, StepOp::AttentionFwd).flop == doctest::Approx(25769803776.0).epsilon(1e-12));  // 24 x 4H·512²
  CHECK(cost(k, StepOp::AttentionBwd).flop == doctest::Approx(2 * 25769803776.0).epsilon(1e-12));
  CHECK(cost(k, StepOp::MlmHeadFwd).flop == doctest::Approx(4910071808.0).epsilon(1e-12));  // 2·76·H·(H + V)
  // Only matmuls count FLOPs.
  for (StepOp op : {StepOp::Copies, StepOp::EmbeddingFwd, StepOp::LayerNormFwd, StepOp::LayerNormBwd,
                    StepOp::DropoutFwd, StepOp::BiasActFwd, StepOp::CrossEntropyBwd, StepOp::Lamb})
    CHECK(cost(k, op).flop == 0);
}

TEST_CASE("cuDNN's attention: the same counts on the attention.cudnn rows, none on ours") {
  const StepCosts ours = large_512();
  StepShape s{.tokens = 512, .sequences = 1, .masked = 76, .sum_len_sq = 512.0 * 512.0, .params = 100000000};
  s.cudnn_attention = true;
  const StepCosts k = step_costs(bert_config_for_size(bert::model::ModelSize::Large), s);
  CHECK(cost(k, StepOp::AttentionCudnnFwd).flop == cost(ours, StepOp::AttentionFwd).flop);
  CHECK(cost(k, StepOp::AttentionCudnnBwd).bytes == cost(ours, StepOp::AttentionBwd).bytes);
  CHECK(cost(k, StepOp::AttentionFwd).flop == 0);
  CHECK(cost(k, StepOp::AttentionBwd).bytes == 0);
  CHECK(cost(ours, StepOp::AttentionCudnnFwd).flop == 0);
  CHECK(step_flop(k) == step_flop(ours));
  CHECK(std::string(step_op_name(StepOp::AttentionCudnnFwd)) == "attention.cudnn.fwd");
  CHECK(std::string(step_op_name(StepOp::AttentionCudnnBwd)) == "attention.cudnn.bwd");
}

TEST_CASE("step bytes: LayerNorm, the QKV backward and LAMB, BERT-Large") {
  const StepCosts k = large_512();
  // 48 fused LNs x (x, residual, y in bf16 + 8 bytes of row statistics) + embedding LN + MLM LN (76 rows)
  CHECK(cost(k, StepOp::LayerNormFwd).bytes == doctest::Approx(153604704.0).epsilon(1e-12));
  // per layer: dX = dY·W^T + dX (dY, W, dX read, dX written), dW fp32 += X^T·dY, db fp32 +=
  CHECK(cost(k, StepOp::QkvBwd).bytes == doctest::Approx(982056960.0).epsilon(1e-12));
  CHECK(cost(k, StepOp::Lamb).bytes == doctest::Approx(4.6e9).epsilon(1e-12));  // 46 bytes per float
}

TEST_CASE("step bytes of the FP8 casts: none for bf16; per layer and token, BERT-Large") {
  const StepCosts bf16 = large_512();
  for (StepOp op : {StepOp::Fp8CastFwd, StepOp::Fp8CastBwd, StepOp::Fp8Weights}) CHECK(cost(bf16, op).bytes == 0);
  const StepShape s{.tokens = 512, .sequences = 1, .masked = 76, .sum_len_sq = 512.0 * 512.0, .params = 100000000,
                    .fp8 = true};
  const StepCosts k = step_costs(bert_config_for_size(bert::model::ModelSize::Large), s);
  // forward: 24 x 512 x 4 B (bf16 read, FP8 and FP8^T written) x (3H + I) = 49152 x 7168
  CHECK(cost(k, StepOp::Fp8CastFwd).bytes == doctest::Approx(352321536.0).epsilon(1e-12));
  // backward: 24 x 512 x (4 B x 5H + 6 B x I) = 12288 x 45056
  CHECK(cost(k, StepOp::Fp8CastBwd).bytes == doctest::Approx(553648128.0).epsilon(1e-12));
  // weights: 24 x 12H² floats x (4 B read + 2 B written)
  CHECK(cost(k, StepOp::Fp8Weights).bytes == doctest::Approx(1811939328.0).epsilon(1e-12));
  CHECK(step_flop(k) == step_flop(bf16));
}

TEST_CASE("the floor of an op is the longer of its FLOP time and its byte time") {
  CHECK(floor_seconds({2e12, 3e9}, 1e15, 3e12) == doctest::Approx(2e-3));
  CHECK(floor_seconds({1e9, 3e9}, 1e15, 3e12) == doctest::Approx(1e-3));
  CHECK(floor_seconds({0, 0}, 1e15, 3e12) == 0);
}

TEST_CASE("every op class has its own name") {
  std::set<std::string> names;
  for (size_t i = 0; i < kStepOps; ++i) {
    const char* n = step_op_name(static_cast<StepOp>(i));
    CHECK(std::strcmp(n, "?") != 0);
    names.insert(n);
  }
  CHECK(names.size() == kStepOps);
}

}  // namespace bert::model
