// The whole optimizer step captured in a CUDA graph (static shapes: padded sequence/mask arrays,
// device-side micro-step and loss normalisers) gives the same losses and parameters as the eager,
// dynamic-shape step, over batches of different sequence and mask counts.
#include "tests/gpu/cuda/gpu_test.h"
#include "tests/gpu/cuda/test_batches.h"
#include "trainer/cuda/train_step.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

bert::model::ParamLayout tiny_layout() {
  auto cfg = bert::model::bert_config_for_size(bert::model::ModelSize::Tiny);
  cfg.vocab_size = 1000;
  cfg.max_position = 128;
  return bert::model::make_param_layout(cfg);
}

// The same step twice from the same weights: eager with dynamic shapes, and graph-captured.
struct EagerAndGraphed {
  std::vector<float> params;
  CudaTrainStep eager, graphed;
  static TrainStepOptions without_graph(TrainStepOptions o) {
    o.use_graph = false;
    return o;
  }
  EagerAndGraphed(const bert::model::ParamLayout& layout, const CudaModelLimits& lim, const TrainStepOptions& opt,
                  uint64_t init_seed)
      : eager(layout, lim, without_graph(opt)), graphed(layout, lim, opt) {
    bert::model::init_params(layout, init_seed, params);
    eager.set_params(params);
    graphed.set_params(params);
  }
};

TrainStepOptions options(uint64_t dropout_seed, int accumulation) {
  TrainStepOptions opt;
  opt.lamb.schedule.base_lr = 1e-3;
  opt.lamb.schedule.total_steps = 100;
  opt.dropout_seed = dropout_seed;
  opt.accumulation_steps = accumulation;
  return opt;
}

}  // namespace

TEST_CASE("graph-captured static-shape step == eager dynamic-shape step") {
  const auto layout = tiny_layout();
  // different sequence and mask counts per batch: the static shapes pad each differently
  std::vector<bert::data::Batch> batches = {make_batch(128, {{40, 60}, {128}, {10, 20, 30}, {99}}, 1000, 1),
                                            make_batch(128, {{128}, {64, 64}, {33}, {1, 2, 3}}, 1000, 2),
                                            make_batch(128, {{100}, {100}, {100}, {20, 100}}, 1000, 3)};
  CudaModelLimits lim{4, 128, 12, 0};
  for (const auto& b : batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());
  EagerAndGraphed both(layout, lim, options(77, 1), 21);
  CudaTrainStep& eager = both.eager;
  CudaTrainStep& graphed = both.graphed;
  for (uint32_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    const auto& b = batches[i % batches.size()];
    eager.step(b, i);
    graphed.step(b, i);
    const auto a = eager.stats(), g = graphed.stats();
    CHECK(std::abs(a.mlm_loss - g.mlm_loss) <= 1e-4 * a.mlm_loss);
    CHECK(std::abs(a.nsp_loss - g.nsp_loss) <= 1e-4 * a.nsp_loss);
    CHECK(a.mlm_correct == g.mlm_correct);
    CHECK(a.masked == g.masked);
    CHECK(a.sequences == g.sequences);
  }
  CHECK(graphed.graph_captured());
  CHECK(rel_l2(graphed.model().params(), eager.model().params()) < 1e-4);
}

// Gradient accumulation: first / middle / last micro-batches are separate graphs (zeroing; plain
// accumulation; allreduce + LAMB). Three micro-batches per update, four updates: every phase runs
// eagerly twice, is captured at its third use and replayed after; the result equals the eager path.
TEST_CASE("gradient accumulation 3: graph-captured micro-steps == eager") {
  const auto layout = tiny_layout();
  std::vector<bert::data::Batch> batches = {make_batch(128, {{128}, {64}, {100}, {31}}, 1000, 4),
                                            make_batch(128, {{20}, {128}, {77}, {90}}, 1000, 5),
                                            make_batch(128, {{50}, {60}, {128}, {128}}, 1000, 6)};
  CudaModelLimits lim{4, 128, 4, 0};
  for (const auto& b : batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());
  EagerAndGraphed both(layout, lim, options(78, 3), 23);
  CudaTrainStep& eager = both.eager;
  CudaTrainStep& graphed = both.graphed;
  const std::vector<float>& params = both.params;
  for (uint32_t update = 0; update < 4; ++update) {
    for (uint32_t m = 0; m < 3; ++m) {
      CAPTURE(update);
      CAPTURE(m);
      const uint32_t micro = update * 3 + m;
      const bool done_e = eager.step(batches[m], micro), done_g = graphed.step(batches[m], micro);
      CHECK(done_e == (m == 2));
      CHECK(done_g == (m == 2));
      const auto a = eager.stats(), g = graphed.stats();
      CHECK(std::abs(a.loss - g.loss) <= 1e-4 * a.loss);
    }
    CHECK(rel_l2(graphed.model().params(), eager.model().params()) < 1e-4);
  }
  CHECK(graphed.graph_captured());
  // the updates moved the weights (LAMB ran once per three micro-batches, not never)
  CHECK(rel_l2(graphed.model().params(), params) > 1e-6);
}

// Batches are staged in pinned double buffers and their copies queued behind the running step, so
// the host runs ahead of the GPU. Steps queued back to back without any read give the same weights
// as steps separated by a full synchronisation (stats() after each).
TEST_CASE("host running ahead (no reads between steps) == synchronising after every step") {
  const auto layout = tiny_layout();
  std::vector<bert::data::Batch> batches;
  for (uint64_t k = 0; k < 5; ++k)
    batches.push_back(make_batch(128, {{128}, {40 + 10 * static_cast<int>(k), 30}, {90}, {64, 64}}, 1000, 30 + k));
  CudaModelLimits lim{4, 128, 8, 0};
  for (const auto& b : batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());
  EagerAndGraphed ahead(layout, lim, options(79, 1), 24), synced(layout, lim, options(79, 1), 24);
  for (uint32_t i = 0; i < 10; ++i) {
    ahead.graphed.step(batches[i % batches.size()], i);
    synced.graphed.step(batches[i % batches.size()], i);
    (void)synced.graphed.stats();
    bert::cuda::test::sync();
  }
  CHECK(ahead.graphed.graph_captured());
  CHECK(rel_l2(ahead.graphed.model().params(), synced.graphed.model().params()) < 1e-6);
  CHECK(std::abs(ahead.graphed.stats().loss - synced.graphed.stats().loss) < 1e-6);
}
