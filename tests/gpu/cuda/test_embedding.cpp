// Embedding sum forward and the scatter-add backward against cpu::embedding_*, on a padded batch
// (the GPU skips padding tokens in backward; their gradient is zero on the CPU too).
#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/embedding.h"
#include "trainer/cuda/embedding.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

void check_embedding(int rows, int seq_len, int hidden, int vocab, uint64_t seed) {
  CAPTURE(hidden);
  std::mt19937_64 g(seed);
  const int T = rows * seq_len;
  std::vector<int32_t> ids(T, 0), pos(T, 0);
  std::vector<int8_t> seg(T, 0), mask(T, 0);
  for (int r = 0; r < rows; ++r) {
    const int len = 1 + static_cast<int>(g() % seq_len);
    for (int i = 0; i < len; ++i) {
      const int t = r * seq_len + i;
      ids[t] = static_cast<int32_t>(g() % 8);  // few distinct ids: heavy atomic collisions
      pos[t] = i;
      seg[t] = i > len / 2 ? 1 : 0;
      mask[t] = 1;
    }
  }
  auto word = random_vec(static_cast<size_t>(vocab) * hidden, g);
  auto position = random_vec(static_cast<size_t>(seq_len) * hidden, g);
  auto type = random_vec(2 * static_cast<size_t>(hidden), g);
  auto dsum = random_vec(static_cast<size_t>(T) * hidden, g);
  for (int t = 0; t < T; ++t)
    if (!mask[t])
      for (int c = 0; c < hidden; ++c) dsum[static_cast<size_t>(t) * hidden + c] = 0.f;  // as the model delivers it

  std::vector<float> sum(static_cast<size_t>(T) * hidden);
  bert::cpu::embedding_forward(ids.data(), pos.data(), seg.data(), word.data(), position.data(), type.data(),
                               sum.data(), T, hidden);
  std::vector<float> gw(word.size(), 0.f), gp(position.size(), 0.f), gt(type.size(), 0.f);
  bert::cpu::embedding_backward(ids.data(), pos.data(), seg.data(), dsum.data(), gw.data(), gp.data(), gt.data(), T,
                                hidden);

  auto d_ids = DeviceBuffer<int32_t>::from(ids), d_pos = DeviceBuffer<int32_t>::from(pos);
  auto d_seg = DeviceBuffer<int8_t>::from(seg), d_mask = DeviceBuffer<int8_t>::from(mask);
  auto d_word = upload_bf16(word), d_position = upload_bf16(position), d_type = upload_bf16(type);
  auto d_sum = poisoned<bf16>(sum.size());
  auto d_dsum = upload_bf16(dsum);
  auto d_gw = DeviceBuffer<float>::from(std::vector<float>(gw.size(), 0.f));
  auto d_gp = DeviceBuffer<float>::from(std::vector<float>(gp.size(), 0.f));
  auto d_gt = DeviceBuffer<float>::from(std::vector<float>(gt.size(), 0.f));
  EmbeddingInputs in{d_ids.get(), d_pos.get(), d_seg.get(), d_mask.get(), T};
  embedding_forward(in, {d_word.get(), d_position.get(), d_type.get()}, d_sum.get(), hidden, nullptr);
  embedding_backward(in, d_dsum.get(), {d_gw.get(), d_gp.get(), d_gt.get()}, hidden, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_sum), sum) < 1e-2);
  CHECK(rel_l2(d_gw.download(), gw) < 1e-5);
  CHECK(rel_l2(d_gp.download(), gp) < 1e-5);
  CHECK(rel_l2(d_gt.download(), gt) < 1e-5);
}

}  // namespace

TEST_CASE("embeddings forward/backward, padded rows") {
  check_embedding(4, 64, 128, 100, 1);
  check_embedding(8, 512, 1024, 300, 2);
}
