// The CUDA dropout mask is the CPU trainer's mask (trainer/model/dropout_rng.h), element for element.
#include <numeric>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/dropout.h"
#include "trainer/cuda/dropout.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

TEST_CASE("dropout_apply equals cpu::dropout_forward and keeps about 1-p") {
  const int rows = 300, hidden = 768;
  const size_t n = static_cast<size_t>(rows) * hidden;
  std::mt19937_64 g(9);
  auto x = random_vec(n, g, 0.5f, 1.5f);  // nonzero, so a zero output means dropped
  for (float p : {0.1f, 0.5f}) {
    CAPTURE(p);
    DropoutSpec d{p, {0x1234567890ull, 3, 17, 0}};
    std::vector<int32_t> tok(rows);
    std::iota(tok.begin(), tok.end(), 0);
    std::vector<float> y(n);
    std::vector<uint8_t> keep(n);
    bert::cpu::dropout_forward(x.data(), y.data(), keep.data(), tok.data(), rows, hidden, d.rng, p);
    auto d_x = upload_bf16(x);
    auto d_y = poisoned<bf16>(n);
    dropout_apply(d_x.get(), d_y.get(), n, d, nullptr);
    sync();
    const auto got = download_bf16(d_y);
    size_t mismatched = 0, kept = 0;
    for (size_t i = 0; i < n; ++i) {
      mismatched += (got[i] != 0.f) != (keep[i] != 0);
      kept += keep[i];
    }
    CHECK(mismatched == 0);
    CHECK(rel_l2(got, y) < 1e-2);
    CHECK(std::abs(static_cast<double>(kept) / n - (1.0 - p)) < 0.01);
  }
}
