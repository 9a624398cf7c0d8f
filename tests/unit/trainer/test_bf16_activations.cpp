// Activations kept in bf16 only (bf16 runs: Q, K, V, the attention output, the feed-forward block):
// every op that reads or writes one gives the bits of the fp32 path followed by the rounding the
// GEMMs would have made anyway, so keeping them in bf16 changes memory, not the math of those ops.
// (GELU is the exception on purpose: it reads the rounded intermediate, as PyTorch's autocast does;
// the model step's tolerance against the fixtures is in test_gemm_bf16.cpp.)
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/trainer/have_bf16.h"
#include "tests/unit/trainer/rel_error.h"
#include "trainer/cpu/attention.h"
#include "trainer/cpu/bf16_round.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/cpu/linear.h"

using namespace bert;
using U16 = std::vector<uint16_t>;
using F32 = std::vector<float>;

namespace {


F32 normal(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> nd(0, scale);
  F32 x(n);
  for (float& e : x) e = nd(g);
  return x;
}

U16 rounded(const F32& x) {
  U16 y(x.size());
  cpu::round_to_bf16(x.data(), y.data(), x.size());
  return y;
}

F32 widened(const U16& x) {
  F32 y(x.size());
  cpu::widen_bf16(x.data(), y.data(), x.size());
  return y;
}

constexpr cpu::MatmulPrecision bf16 = cpu::MatmulPrecision::bf16, fp32 = cpu::MatmulPrecision::fp32;

}  // namespace

TEST_CASE("widen_bf16 is exact: rounding a widened bf16 gives its bits back") {
  U16 all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  const U16 back = rounded(widened(all));
  for (size_t i = 0; i < all.size(); ++i) {
    const bool nan = (all[i] & 0x7f80) == 0x7f80 && (all[i] & 0x7f) != 0, subnormal = (all[i] & 0x7f80) == 0;
    if (nan || subnormal) continue;  // quieted / flushed by the rounding, as bf16_round.h says
    REQUIRE(back[i] == all[i]);
  }
}

TEST_CASE("bf16 operands and results: a bf16 C is the fp32 C rounded; bf16 A and B are read as they are") {
  if (!test::have_bf16()) return;
  const int m = 150, n = 96, k = 70;  // m >= 64: split over the threads' row blocks
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int threads : {1, 2}) {
        CAPTURE(ta);
        CAPTURE(tb);
        CAPTURE(threads);
        omp_set_num_threads(threads);
        const int lda = ta ? m : k, ldb = tb ? k : n;
        const U16 a16 = rounded(normal(static_cast<size_t>(m) * k, 1)), b16 = rounded(normal(static_cast<size_t>(k) * n, 2));
        const F32 a = widened(a16), b = widened(b16), bias = normal(static_cast<size_t>(n), 3);
        F32 c(static_cast<size_t>(m) * n);
        U16 c16(c.size());
        cpu::gemm(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), n, bf16);
        cpu::gemm(ta, tb, m, n, k, 0.5f, a16.data(), lda, b16.data(), ldb, 0.0f, c16.data(), n, bf16);
        CHECK(c16 == rounded(c));
        // with the bias in the epilogue, and mixed: fp32 A, bf16 B
        cpu::gemm_bias(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, bias.data(), c.data(), n, bf16);
        cpu::gemm_bias(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, bias.data(), c16.data(), n, bf16);
        CHECK(c16 == rounded(c));
        F32 c_mixed(c.size());
        cpu::gemm(ta, tb, m, n, k, 1.0f, a.data(), lda, b16.data(), ldb, 0.0f, c_mixed.data(), n, bf16);
        cpu::gemm(ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), n, bf16);
        CHECK(c_mixed == c);
      }
  omp_set_num_threads(2);
  SUBCASE("a strided bf16 C (a head's slice) is written through dense scratch; its gaps are untouched") {
    const int ldc = n + 40;
    const U16 a16 = rounded(normal(static_cast<size_t>(m) * k, 4)), b16 = rounded(normal(static_cast<size_t>(k) * n, 5));
    F32 c(static_cast<size_t>(m) * n);
    U16 c16(static_cast<size_t>(m) * ldc, 0xabcd);
    cpu::gemm_on_thread(false, false, m, n, k, 1.0f, a16.data(), k, b16.data(), n, 0.0f, c.data(), n, bf16);
    cpu::gemm_on_thread(false, false, m, n, k, 1.0f, a16.data(), k, b16.data(), n, 0.0f, c16.data(), ldc, bf16);
    const U16 want = rounded(c);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < ldc; ++j)
        REQUIRE(c16[static_cast<size_t>(i) * ldc + j] == (j < n ? want[static_cast<size_t>(i) * n + j] : 0xabcd));
  }
  SUBCASE("in an fp32 run a product with a bf16 operand still runs in bf16") {
    const U16 a16 = rounded(normal(static_cast<size_t>(m) * k, 6));
    const F32 b = normal(static_cast<size_t>(k) * n, 7);
    F32 c(static_cast<size_t>(m) * n), want(c.size());
    cpu::gemm(false, false, m, n, k, 1.0f, a16.data(), k, b.data(), n, 0.0f, c.data(), n, fp32);
    cpu::gemm(false, false, m, n, k, 1.0f, widened(a16).data(), k, b.data(), n, 0.0f, want.data(), n, bf16);
    CHECK(c == want);
  }
}

TEST_CASE("GELU on bf16: the fp32 GELU of the widened input, rounded; backward's dx and its bias sums before rounding") {
  const int rows = 70, cols = 300;  // several 4096-element blocks and 32-row sum tasks, with tails
  const size_t n = static_cast<size_t>(rows) * cols;
  const U16 x16 = rounded(normal(n, 8, 3.0f));
  const F32 x = widened(x16), dy = normal(n, 9);
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    U16 y16(n);
    cpu::gelu_forward(x16.data(), y16.data(), n);
    F32 y(n);
    cpu::gelu_forward(x.data(), y.data(), n);
    CHECK(y16 == rounded(y));
    // Backward works row by row (its fp32 values may differ from the 4096-element blocks' in the last
    // bit where a row's tail is not vectorized): dx within one bf16 step, the bias sums within float
    // rounding of the fp32 sums, far from the ~1e-3 of summing the rounded values.
    F32 dx(n);
    cpu::gelu_backward(x.data(), dy.data(), dx.data(), n);
    for (bool accumulate : {false, true}) {
      CAPTURE(accumulate);
      U16 dx16(n);
      const F32 db0 = normal(static_cast<size_t>(cols), 10);
      F32 db = db0, want_db(static_cast<size_t>(cols));
      cpu::gelu_backward(x16.data(), dy.data(), dx16.data(), db.data(), rows, cols, accumulate);
      const F32 got = widened(dx16);
      for (size_t i = 0; i < n; ++i) REQUIRE(std::fabs(got[i] - dx[i]) <= std::fabs(dx[i]) * 0x1p-8f);
      for (int c = 0; c < cols; ++c) {
        double sum = accumulate ? db0[static_cast<size_t>(c)] : 0.0;
        for (int r = 0; r < rows; ++r) sum += dx[static_cast<size_t>(r) * cols + c];
        want_db[static_cast<size_t>(c)] = static_cast<float>(sum);
      }
      CHECK(test::rel_error(db, want_db) < 1e-5);
    }
  }
  omp_set_num_threads(2);
}

TEST_CASE("linear_backward with a bf16 dy: its producer sums the bias (db must be null); dx and dW as for fp32 dy") {
  if (!test::have_bf16()) return;
  const int t = 96, in = 40, out = 72;
  const F32 x = normal(static_cast<size_t>(t) * in, 11), w = normal(static_cast<size_t>(in) * out, 12);
  const U16 dy16 = rounded(normal(static_cast<size_t>(t) * out, 13));
  const F32 dy = widened(dy16);
  F32 dx(static_cast<size_t>(t) * in), dw(static_cast<size_t>(in) * out), db(static_cast<size_t>(out));
  F32 dx_want = dx, dw_want = dw;
  CHECK_THROWS_AS(
      cpu::linear_backward(x.data(), w.data(), dy16.data(), dx.data(), dw.data(), db.data(), t, in, out, bf16),
      std::logic_error);
  cpu::linear_backward(x.data(), w.data(), dy16.data(), dx.data(), dw.data(), nullptr, t, in, out, bf16, false);
  cpu::linear_backward(x.data(), w.data(), dy.data(), dx_want.data(), dw_want.data(), db.data(), t, in, out, bf16,
                       false);
  CHECK(dx == dx_want);
  CHECK(dw == dw_want);
}

TEST_CASE("attention on bf16 Q, K, V writing a bf16 output: the bits of attention on their fp32 values, rounded") {
  if (!test::have_bf16()) return;
  const int heads = 2, d = 64, hidden = heads * d, seq_len = 80;
  const std::vector<int32_t> start = {0, 77, 100, 180}, first_flat = {0, 80, 160};
  const int S = 3;
  const std::vector<int64_t> off = cpu::attention_prob_offsets(start.data(), S, heads);
  const cpu::AttentionShape sh{heads, d, seq_len, start.data(), first_flat.data(), S, off.data()};
  const size_t np = static_cast<size_t>(off[S]), nt = static_cast<size_t>(start.back()) * hidden;
  const U16 q16 = rounded(normal(nt, 14)), k16 = rounded(normal(nt, 15)), v16 = rounded(normal(nt, 16));
  const F32 q = widened(q16), k = widened(k16), v = widened(v16), dctx = normal(nt, 17);
  const model::DropoutStream rng{13, 0, 3, model::dropout_stream_id(0, 0)};
  const float p = 0.1f;
  std::vector<uint8_t> keep(np), keep16(np);
  F32 probs(np), probs16(np), ctx(nt);
  U16 ctx16(nt);
  cpu::attention_forward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), ctx.data(), rng, p, bf16);
  cpu::attention_forward(sh, q16.data(), k16.data(), v16.data(), probs16.data(), keep16.data(), ctx16.data(), rng, p,
                         bf16);
  CHECK(probs16 == probs);
  CHECK(keep16 == keep);
  CHECK(ctx16 == rounded(ctx));
  F32 dq(nt), dk(nt), dv(nt), dq16(nt), dk16(nt), dv16(nt);
  cpu::attention_backward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(), dq.data(),
                          dk.data(), dv.data(), p, bf16);
  cpu::attention_backward(sh, q16.data(), k16.data(), v16.data(), probs.data(), keep.data(), dctx.data(), dq16.data(),
                          dk16.data(), dv16.data(), p, bf16);
  CHECK(dq16 == dq);
  CHECK(dk16 == dk);
  CHECK(dv16 == dv);
}
