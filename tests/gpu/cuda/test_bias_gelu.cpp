// Bias + GELU (tanh form) / tanh / identity, forward and backward, against cpu::gelu_* and
// cpu::add_column_sums.
#include <cmath>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cpu/linear.h"
#include "trainer/cuda/bias_gelu.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

void check_bias_act(int rows, int cols, Activation act, uint64_t seed) {
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(static_cast<int>(act));
  std::mt19937_64 g(seed);
  const size_t n = static_cast<size_t>(rows) * cols;
  auto x = random_vec(n, g, -3.f, 3.f);
  auto bias = random_vec(cols, g);
  auto dy = random_vec(n, g);
  std::vector<float> pre(n), y(n), dpre(n), dbias(cols, 0.5f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) pre[static_cast<size_t>(r) * cols + c] = x[static_cast<size_t>(r) * cols + c] + bias[c];
  if (act == Activation::Gelu) {
    bert::cpu::gelu_forward(pre.data(), y.data(), n);
    bert::cpu::gelu_backward(pre.data(), dy.data(), dpre.data(), n);
  } else {
    for (size_t i = 0; i < n; ++i) {
      const float t = act == Activation::Tanh ? std::tanh(pre[i]) : pre[i];
      y[i] = t;
      dpre[i] = act == Activation::Tanh ? dy[i] * (1.f - t * t) : dy[i];
    }
  }
  bert::cpu::add_column_sums(dpre.data(), dbias.data(), rows, cols);

  auto d_x = upload_bf16(x), d_dy = upload_bf16(dy);
  auto d_bias = DeviceBuffer<float>::from(bias);
  auto d_y = poisoned<bf16>(n), d_dpre = poisoned<bf16>(n);
  auto d_dbias = DeviceBuffer<float>::from(std::vector<float>(cols, 0.5f));
  DeviceBuffer<float> scratch(bias_act_backward_scratch_floats(rows, cols));
  bias_act_forward(d_x.get(), d_bias.get(), d_y.get(), rows, cols, act, nullptr);
  bias_act_backward(d_dy.get(), d_x.get(), d_bias.get(), d_dpre.get(), d_dbias.get(), scratch.get(), rows, cols, act,
                    nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_y), y) < 1e-2);
  CHECK(rel_l2(download_bf16(d_dpre), dpre) < 1e-2);
  CHECK(rel_l2(d_dbias.download(), dbias) < 1e-2);  // sums of bf16-rounded dpre
}

}  // namespace

TEST_CASE("bias + GELU (FFN intermediate, MLM transform)") {
  check_bias_act(77, 512, Activation::Gelu, 1);
  check_bias_act(2000, 4096, Activation::Gelu, 2);  // more row blocks than the cap
}

TEST_CASE("bias + tanh (pooler) and bias only") {
  check_bias_act(33, 128, Activation::Tanh, 3);
  check_bias_act(33, 1024, Activation::None, 4);
}
