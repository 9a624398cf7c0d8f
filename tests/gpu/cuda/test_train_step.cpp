// The whole optimizer step captured in a CUDA graph (static shapes: padded sequence/mask arrays,
// device-side micro-step and loss normalisers) gives the same losses and parameters as the eager,
// dynamic-shape step, over batches of different sequence and mask counts.
#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cuda/train_step.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

bert::data::Batch packed_batch(int rows, int seq_len, int vocab, uint64_t seed) {
  std::mt19937_64 g(seed);
  bert::data::Batch b;
  b.rows = rows;
  b.seq_len = seq_len;
  b.packed = true;
  const int n = rows * seq_len;
  b.input_ids.assign(n, 0);
  b.segment_ids.assign(n, 0);
  b.input_mask.assign(n, 0);
  b.position_ids.assign(n, 0);
  b.cu_seqlens.push_back(0);
  for (int r = 0; r < rows; ++r) {
    const int parts = 1 + static_cast<int>(g() % 3);
    int at = r * seq_len;
    for (int p = 0; p < parts; ++p) {
      const int len = 8 + static_cast<int>(g() % (seq_len / 3 - 8));
      const int s = b.num_sequences++;
      b.seq_row.push_back(r);
      b.seq_first_token.push_back(at);
      b.seq_lengths.push_back(len);
      b.nsp_labels.push_back(static_cast<int8_t>(g() % 2));
      for (int i = 0; i < len; ++i) {
        b.input_ids[at + i] = 1 + static_cast<int32_t>(g() % (vocab - 1));
        b.input_mask[at + i] = 1;
        b.position_ids[at + i] = i;
        b.segment_ids[at + i] = i > len / 2;
        if (i > 0 && g() % 100 < 15) {
          b.mlm_token_index.push_back(at + i);
          b.mlm_label_ids.push_back(1 + static_cast<int32_t>(g() % (vocab - 1)));
          b.mlm_sequence.push_back(s);
        }
      }
      at += len;
      b.cu_seqlens.push_back(p + 1 == parts ? (r + 1) * seq_len : at);
    }
  }
  return b;
}

}  // namespace

TEST_CASE("graph-captured static-shape step == eager dynamic-shape step") {
  auto cfg = bert::model::bert_config_for_size("tiny");
  cfg.vocab_size = 1000;
  cfg.max_position = 128;
  const auto layout = bert::model::make_param_layout(cfg);
  std::vector<float> params;
  bert::model::init_params(layout, 21, params);
  std::vector<bert::data::Batch> batches = {packed_batch(4, 128, 1000, 1), packed_batch(4, 128, 1000, 2),
                                            packed_batch(4, 128, 1000, 3)};
  CudaModelLimits lim{4, 128, 12, 0};
  for (const auto& b : batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());

  TrainStepOptions opt;
  opt.lamb.base_lr = 1e-3f;
  opt.lamb.total_steps = 100;
  opt.dropout_seed = 77;
  TrainStepOptions eager_opt = opt;
  eager_opt.use_graph = false;
  CudaTrainStep eager(layout, lim, eager_opt);
  CudaTrainStep graphed(layout, lim, opt);
  eager.set_params(params);
  graphed.set_params(params);
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
