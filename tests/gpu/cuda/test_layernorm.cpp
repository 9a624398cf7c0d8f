// LayerNorm (+dropout on x, +residual) forward and backward against the CPU trainer's ops:
// cpu::dropout_forward, residual add, cpu::layernorm_forward/backward, cpu::dropout_backward.
#include <numeric>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/dropout.h"
#include "trainer/cpu/layernorm.h"
#include "trainer/cuda/layernorm.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// keep_bytes: the forward also writes its dropout keep flags (== the CPU's mask, bit by bit) and a second
// backward reads them instead of drawing: the same outputs, bit for bit.
void check_layernorm(int rows, int hidden, bool residual, float p, uint64_t seed, bool keep_bytes = false) {
  CAPTURE(rows);
  CAPTURE(hidden);
  CAPTURE(residual);
  CAPTURE(p);
  CAPTURE(keep_bytes);
  std::mt19937_64 g(seed);
  const size_t n = static_cast<size_t>(rows) * hidden;
  auto x = random_vec(n, g, -2.f, 2.f);
  auto r = residual ? random_vec(n, g) : std::vector<float>(n, 0.f);
  auto gamma = random_vec(hidden, g, 0.5f, 1.5f);
  auto beta = random_vec(hidden, g, -0.5f, 0.5f);
  auto dy = random_vec(n, g);
  DropoutSpec d{p, {seed * 7 + 1, 1, 5, 11}};
  const bert::model::DropoutStream rng = d.rng;

  // CPU: z = dropout(x) + r; y = LN(z)
  std::vector<int32_t> tok(rows);
  std::iota(tok.begin(), tok.end(), 0);
  std::vector<float> z(n), y(n), mean(rows), rstd(rows);
  std::vector<uint8_t> keep(n);
  bert::cpu::dropout_forward(x.data(), z.data(), keep.data(), tok.data(), rows, hidden, rng, p);
  for (size_t i = 0; i < n; ++i) z[i] += r[i];
  bert::cpu::layernorm_forward(z.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), rows, hidden);
  std::vector<float> dz(n), dx(n), dgamma(hidden, 0.25f), dbeta(hidden, -0.25f);
  bert::cpu::layernorm_backward(z.data(), gamma.data(), mean.data(), rstd.data(), dy.data(), dz.data(),
                                dgamma.data(), dbeta.data(), rows, hidden);
  bert::cpu::dropout_backward(dz.data(), dx.data(), keep.data(), n, p);

  auto dx_in = upload_bf16(x), dr = upload_bf16(r), ddy = upload_bf16(dy);
  auto dg = DeviceBuffer<float>::from(gamma), db = DeviceBuffer<float>::from(beta);
  auto dyout = poisoned<bf16>(n);
  auto dmean = poisoned<float>(rows), drstd = poisoned<float>(rows);
  LayerNormForwardArgs fa;
  fa.x = dx_in.get();
  fa.residual = residual ? dr.get() : nullptr;
  fa.dropout = d;
  fa.gamma = dg.get();
  fa.beta = db.get();
  fa.y = dyout.get();
  fa.mean = dmean.get();
  fa.rstd = drstd.get();
  fa.rows = rows;
  fa.hidden = hidden;
  fa.eps = bert::cpu::kLayerNormEps;
  auto dkeep = poisoned<uint8_t>(n / 8);
  if (keep_bytes) fa.keep_out = dkeep.get();
  layernorm_forward(fa, nullptr);
  sync();
  if (keep_bytes) {
    const std::vector<uint8_t> bytes = dkeep.download();
    int wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += ((bytes[i / 8] >> (i % 8)) & 1u) != keep[i];
    CHECK(wrong == 0);
  }
  CHECK(rel_l2(download_bf16(dyout), y) < 1e-2);
  CHECK(rel_l2(dmean.download(), mean) < 1e-5);
  CHECK(rel_l2(drstd.download(), rstd) < 1e-5);

  auto ddz = poisoned<bf16>(n), ddx = poisoned<bf16>(n);
  auto ddgamma = DeviceBuffer<float>::from(std::vector<float>(hidden, 0.25f));
  auto ddbeta = DeviceBuffer<float>::from(std::vector<float>(hidden, -0.25f));
  DeviceBuffer<float> scratch(layernorm_backward_scratch_floats(rows, hidden));
  LayerNormBackwardArgs ba;
  ba.dy = ddy.get();
  ba.x = dx_in.get();
  ba.residual = fa.residual;
  ba.dropout = d;
  ba.gamma = dg.get();
  ba.mean = dmean.get();
  ba.rstd = drstd.get();
  ba.dz = ddz.get();
  ba.dx = ddx.get();
  ba.dgamma = ddgamma.get();
  ba.dbeta = ddbeta.get();
  ba.scratch = scratch.get();
  ba.rows = rows;
  ba.hidden = hidden;
  layernorm_backward(ba, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(ddz), dz) < 1e-2);
  CHECK(rel_l2(download_bf16(ddx), dx) < 1e-2);
  CHECK(rel_l2(ddgamma.download(), dgamma) < 1e-4);
  CHECK(rel_l2(ddbeta.download(), dbeta) < 1e-4);
  if (keep_bytes) {
    const auto dz_drawn = download_bf16(ddz), dx_drawn = download_bf16(ddx);  // finite: checked above
    const auto dgamma_drawn = ddgamma.download(), dbeta_drawn = ddbeta.download();
    ba.keep = dkeep.get();
    auto ddgamma2 = DeviceBuffer<float>::from(std::vector<float>(hidden, 0.25f));
    auto ddbeta2 = DeviceBuffer<float>::from(std::vector<float>(hidden, -0.25f));
    auto ddz2 = poisoned<bf16>(n), ddx2 = poisoned<bf16>(n);
    ba.dz = ddz2.get();
    ba.dx = ddx2.get();
    ba.dgamma = ddgamma2.get();
    ba.dbeta = ddbeta2.get();
    layernorm_backward(ba, nullptr);
    sync();
    CHECK(download_bf16(ddz2) == dz_drawn);
    CHECK(download_bf16(ddx2) == dx_drawn);
    CHECK(ddgamma2.download() == dgamma_drawn);
    CHECK(ddbeta2.download() == dbeta_drawn);
  }
}

}  // namespace

TEST_CASE("layernorm alone (embeddings, MLM transform)") {
  check_layernorm(37, 128, false, 0.f, 1);
  check_layernorm(300, 1024, false, 0.f, 2);
}

TEST_CASE("layernorm fused with dropout and residual (encoder post-LN)") {
  check_layernorm(37, 128, true, 0.1f, 3);
  check_layernorm(4133, 1024, true, 0.1f, 4);  // more rows than the block cap: grid-stride path
  check_layernorm(64, 768, true, 0.f, 5);
}

TEST_CASE("layernorm: the forward's keep flags (1 bit each) == the CPU mask; the backward reading them == drawing") {
  check_layernorm(37, 128, true, 0.1f, 6, true);
  check_layernorm(4133, 1024, true, 0.1f, 7, true);
}

TEST_CASE("layernorm rejects an unsupported hidden size") {
  LayerNormForwardArgs fa;
  fa.rows = 1;
  fa.hidden = 2048;
  CHECK_THROWS_AS(layernorm_forward(fa, nullptr), CudaError);
}
