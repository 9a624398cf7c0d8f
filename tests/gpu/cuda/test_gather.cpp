// Row gather (masked tokens, first tokens) and its scatter-add backward against plain loops.
#include <algorithm>
#include <numeric>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cuda/gather.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

TEST_CASE("gather_rows / scatter_add_rows") {
  const int n = 1000, cols = 1024, m = 150;
  std::mt19937_64 g(4);
  std::vector<int32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), g);
  std::vector<int32_t> idx(perm.begin(), perm.begin() + m);  // distinct, as masked positions are
  auto src = random_vec(static_cast<size_t>(n) * cols, g);
  auto rows = random_vec(static_cast<size_t>(m) * cols, g);
  std::vector<float> gathered(static_cast<size_t>(m) * cols), scattered = src;
  for (int i = 0; i < m; ++i)
    for (int c = 0; c < cols; ++c) {
      gathered[static_cast<size_t>(i) * cols + c] = src[static_cast<size_t>(idx[i]) * cols + c];
      scattered[static_cast<size_t>(idx[i]) * cols + c] += rows[static_cast<size_t>(i) * cols + c];
    }
  auto d_src = upload_bf16(src), d_rows = upload_bf16(rows);
  auto d_idx = DeviceBuffer<int32_t>::from(idx);
  auto d_out = poisoned<bf16>(gathered.size());
  gather_rows(d_src.get(), d_idx.get(), d_out.get(), m, cols, nullptr);
  scatter_add_rows(d_rows.get(), d_idx.get(), d_src.get(), m, cols, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_out), gathered) == 0.0);
  CHECK(rel_l2(download_bf16(d_src), scattered) < 1e-2);
}
