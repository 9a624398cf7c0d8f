// Column sums (column_sum.cu: the bias and LayerNorm parameter gradients' reductions) against a plain
// loop summed in double.
#include <tuple>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cuda/column_sum.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

std::vector<float> column_sums(const std::vector<float>& m, int rows, int cols, int ld) {
  std::vector<float> out(static_cast<size_t>(cols));
  for (int c = 0; c < cols; ++c) {
    double s = 0;
    for (int r = 0; r < rows; ++r) s += m[static_cast<size_t>(r) * ld + c];
    out[static_cast<size_t>(c)] = static_cast<float>(s);
  }
  return out;
}

}  // namespace

TEST_CASE("column_sum_add adds every row's column into out") {
  std::mt19937_64 g(11);
  const int rows = 77, cols = 1000;  // cols not a multiple of 32
  const auto partials = random_vec(static_cast<size_t>(rows) * cols, g);
  const auto base = random_vec(static_cast<size_t>(cols), g);
  std::vector<float> want = column_sums(partials, rows, cols, cols);
  for (int c = 0; c < cols; ++c) want[static_cast<size_t>(c)] += base[static_cast<size_t>(c)];
  auto d_p = DeviceBuffer<float>::from(partials);
  auto d_out = DeviceBuffer<float>::from(base);
  column_sum_add(d_p.get(), rows, cols, d_out.get(), nullptr);
  sync();
  CHECK(rel_l2(d_out.download(), want) < 1e-6);
}

TEST_CASE("column_sum_bf16 of a strided bf16 matrix, the same from run to run") {
  std::mt19937_64 g(12);
  for (const auto& [rows, cols, ld] : {std::tuple{4096, 1024, 1024}, std::tuple{1000, 130, 192}, std::tuple{3, 40, 40}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    const auto m = random_vec(static_cast<size_t>(rows) * ld, g);
    const std::vector<float> want = column_sums(m, rows, cols, ld);
    auto d_m = upload_bf16(m);
    auto d_out = poisoned<float>(static_cast<size_t>(cols));
    auto d_scratch = DeviceBuffer<float>(column_sum_bf16_scratch_floats(rows, cols));
    column_sum_bf16(d_m.get(), rows, cols, ld, d_out.get(), d_scratch.get(), nullptr);
    sync();
    const std::vector<float> first = d_out.download();
    CHECK(rel_l2(first, want) < 1e-5);  // fp32 sums of exact bf16 values
    column_sum_bf16(d_m.get(), rows, cols, ld, d_out.get(), d_scratch.get(), nullptr);
    sync();
    CHECK(rel_l2(d_out.download(), first) == 0.0);  // a fixed order: deterministic
  }
}
