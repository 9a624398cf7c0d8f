// The optimized CPU ops against their plain references (llm.c style: the reference stays in the
// tree next to the op): attention as GEMMs vs per-row loops, LayerNorm by rows with chunked dgamma/dbeta vs
// column loops, float cross entropy vs double, GELU with
// the vectorized exp vs std::exp. Tolerances: float rounding of differently ordered sums (1e-5
// relative over a tensor) and exp_approx's 2e-7 relative error.
#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/unit/trainer/attention_kept.h"
#include "tests/unit/trainer/rel_error.h"
#include "trainer/cpu/attention.h"
#include "trainer/cpu/cross_entropy.h"
#include "trainer/cpu/dropout.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cpu/layernorm.h"
#include "trainer/cpu/vec_math.h"

using namespace bert;

namespace {

std::vector<float> randn(size_t n, uint64_t seed, float sd = 1.0f) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

}  // namespace

TEST_CASE("exp_approx: relative error below 2e-7 over the float range, 0 far below") {
  double worst = 0;
  for (float x = -87.0f; x < 88.0f; x += 0.0137f) {
    const double ref = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(cpu::exp_approx(x) - ref) / ref);
  }
  CHECK(worst < 2e-7);
  CHECK(cpu::exp_approx(0.0f) == 1.0f);
  CHECK(cpu::exp_approx(-100.0f) == 0.0f);
  CHECK(cpu::exp_approx(-INFINITY) == 0.0f);
}

TEST_CASE("attention as GEMMs matches the plain-loop reference (3 sequences, dropout on and off)") {
  const int heads = 4, d = 16, hidden = heads * d, seq_len = 40;
  const std::vector<int32_t> start = {0, 37, 50, 90}, first_flat = {0, 40, 80};
  const int T = start.back(), S = 3;
  const std::vector<int64_t> off = cpu::attention_prob_offsets(start.data(), S, heads);
  const cpu::AttentionShape sh{heads, d, seq_len, start.data(), first_flat.data(), S, off.data()};
  const auto q = randn(static_cast<size_t>(T) * hidden, 1), k = randn(static_cast<size_t>(T) * hidden, 2),
             v = randn(static_cast<size_t>(T) * hidden, 3), dctx = randn(static_cast<size_t>(T) * hidden, 4);
  for (float p : {0.0f, 0.1f}) {
    CAPTURE(p);
    const model::DropoutStream rng{11, 0, 3, model::dropout_stream_id(0, 0)};
    const size_t np = static_cast<size_t>(off[S]), nt = static_cast<size_t>(T) * hidden;
    std::vector<float> probs(np), probs_ref(np), ctx(nt), ctx_ref(nt);
    std::vector<uint8_t> keep(np), keep_ref(np);
    cpu::attention_forward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), ctx.data(), rng, p,
                           cpu::MatmulPrecision::fp32);
    cpu::attention_forward_ref(sh, q.data(), k.data(), v.data(), probs_ref.data(), keep_ref.data(), ctx_ref.data(),
                               rng, p);
    CHECK(keep == keep_ref);
    CHECK(test::rel_error(probs, probs_ref) < 1e-5);
    CHECK(test::rel_error(ctx, ctx_ref) < 1e-5);
    std::vector<float> dq(nt), dk(nt), dv(nt), dq_ref(nt), dk_ref(nt), dv_ref(nt);
    cpu::attention_backward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(), dq.data(),
                            dk.data(), dv.data(), p, cpu::MatmulPrecision::fp32);
    // the dropped probabilities kept by the forward for the backward (as the model runs): the same bits
    test::check_kept_dropped_same_bits<float>(sh, rng, p, {q, k, v, dctx, ctx, dq, dk, dv});
    cpu::attention_backward_ref(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(),
                                dq_ref.data(), dk_ref.data(), dv_ref.data(), p);
    CHECK(test::rel_error(dq, dq_ref) < 1e-5);
    CHECK(test::rel_error(dk, dk_ref) < 1e-5);
    CHECK(test::rel_error(dv, dv_ref) < 1e-5);
  }
}

TEST_CASE("float cross entropy matches the double reference: loss, argmax, gradient (in place)") {
  const int rows = 7, classes = 30522;
  std::vector<float> logits = randn(static_cast<size_t>(rows) * classes, 5, 3.0f);
  logits[3 * classes + 17] = logits[3 * classes + 4000] = 50.0f;  // a tie: the first maximum wins
  const std::vector<int32_t> labels = {0, 5, 30521, 17, 4000, 123, 9};
  const auto ref_loss = cpu::cross_entropy_ref(logits.data(), labels.data(), rows, classes, 0.0f, nullptr);
  const auto fwd = cpu::cross_entropy(logits.data(), labels.data(), rows, classes, 0.0f, nullptr);
  CHECK(fwd.loss_sum == doctest::Approx(ref_loss.loss_sum).epsilon(1e-6));
  CHECK(fwd.correct == ref_loss.correct);
  CHECK(fwd.correct == 1);
  std::vector<float> g_ref(logits.size()), g = logits;
  cpu::cross_entropy_ref(logits.data(), labels.data(), rows, classes, 0.25f, g_ref.data());
  const auto bwd = cpu::cross_entropy(g.data(), labels.data(), rows, classes, 0.25f, g.data());
  CHECK(bwd.loss_sum == doctest::Approx(ref_loss.loss_sum).epsilon(1e-6));
  CHECK(test::rel_error(g, g_ref) < 1e-6);
}

TEST_CASE("vectorized GELU matches the std::exp reference, forward and backward") {
  const size_t n = 10007;  // not a multiple of the block or the vector width
  std::vector<float> x = randn(n, 6, 4.0f);
  x[0] = 30.0f, x[1] = -30.0f, x[2] = 0.0f;
  const auto dy = randn(n, 7);
  std::vector<float> y(n), y_ref(n), dx(n), dx_ref(n);
  cpu::gelu_forward(x.data(), y.data(), n);
  cpu::gelu_forward_ref(x.data(), y_ref.data(), n);
  cpu::gelu_backward(x.data(), dy.data(), dx.data(), n);
  cpu::gelu_backward_ref(x.data(), dy.data(), dx_ref.data(), n);
  double worst_y = 0, worst_dx = 0;
  for (size_t i = 0; i < n; ++i) {
    worst_y = std::max(worst_y, static_cast<double>(std::fabs(y[i] - y_ref[i]) / std::max(1.0f, std::fabs(y_ref[i]))));
    worst_dx = std::max(worst_dx, static_cast<double>(std::fabs(dx[i] - dx_ref[i]) / std::max(1.0f, std::fabs(dx_ref[i]))));
  }
  CHECK(worst_y < 1e-6);
  CHECK(worst_dx < 1e-6);
  CHECK(y[1] == 0.0f);
  CHECK(y[0] == 30.0f);
}

TEST_CASE("vectorized LayerNorm matches the plain-loop reference; dgamma/dbeta independent of the thread count") {
  const int t = 77, n = 200;  // rows not a multiple of the chunk, width not of the vector
  const auto x = randn(static_cast<size_t>(t) * n, 8, 3.0f), gamma = randn(n, 9), beta = randn(n, 10),
             dy = randn(static_cast<size_t>(t) * n, 11);
  std::vector<float> y(x.size()), y_ref(x.size()), mean(t), rstd(t), mean_ref(t), rstd_ref(t);
  cpu::layernorm_forward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), t, n);
  cpu::layernorm_forward_ref(x.data(), gamma.data(), beta.data(), y_ref.data(), mean_ref.data(), rstd_ref.data(), t, n);
  CHECK(test::rel_error(y, y_ref) < 1e-6);
  CHECK(test::rel_error(rstd, rstd_ref) < 1e-6);
  std::vector<float> dx(x.size()), dx_ref(x.size()), dg(n, 0.5f), db(n, -0.5f), dg_ref = dg, db_ref = db;
  cpu::layernorm_backward(x.data(), gamma.data(), mean.data(), rstd.data(), dy.data(), dx.data(), dg.data(), db.data(), t, n);
  cpu::layernorm_backward_ref(x.data(), gamma.data(), mean.data(), rstd.data(), dy.data(), dx_ref.data(), dg_ref.data(),
                              db_ref.data(), t, n);
  CHECK(test::rel_error(dx, dx_ref) < 1e-5);
  CHECK(test::rel_error(dg, dg_ref) < 1e-6);  // accumulates into the existing values
  CHECK(test::rel_error(db, db_ref) < 1e-6);
  std::vector<float> dx1(x.size()), dg1(n, 0.5f), db1(n, -0.5f);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  cpu::layernorm_backward(x.data(), gamma.data(), mean.data(), rstd.data(), dy.data(), dx1.data(), dg1.data(), db1.data(), t, n);
  omp_set_num_threads(before);
  CHECK(dg1 == dg);
  CHECK(db1 == db);
  CHECK(dx1 == dx);
}

TEST_CASE("vectorized dropout keep flags are the bits of the one Philox definition (dropout_rng.h)") {
  const model::DropoutStream rng{0x123456789abcdefull, 3, 41, 7};
  std::mt19937_64 g(12);
  for (int trial = 0; trial < 200; ++trial) {
    // any start (not a multiple of 4), lengths across the batch size of lanes, counters above 2^32
    const uint64_t first = g() % (1ull << 40);
    const int count = 1 + static_cast<int>(g() % 2500);
    const float p = trial % 3 == 0 ? 0.5f : 0.1f;
    std::vector<uint8_t> ours(static_cast<size_t>(count) + 1, 9), ref(static_cast<size_t>(count) + 1, 9);
    cpu::fill_keep(rng, first, count, p, ours.data());
    rng.fill_keep(first, count, p, ref.data());
    CAPTURE(first);
    CAPTURE(count);
    REQUIRE(ours == ref);  // incl. the byte after the range: untouched
    cpu::fill_keep_attention(rng, first, count, p, ours.data());
    rng.fill_keep_attention(first, count, p, ref.data());
    REQUIRE(ours == ref);
    for (int i = 0; i < count; i += 97) REQUIRE(ref[static_cast<size_t>(i)] == rng.keep_attention(first + i, p));
  }
}

TEST_CASE("apply_keep: the bits of keep ? x·scale : 0, in place too, the range's neighbours untouched") {
  std::mt19937_64 g(5);
  const float scale = 1.0f / 0.9f;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{63}, size_t{512}, size_t{1001}}) {
    std::vector<float> x = randn(n + 2, 40 + n);
    if (n > 2) x[2] = INFINITY, x[3] = -0.0f;  // dropped or kept, an infinity is not turned into a NaN
    std::vector<uint8_t> keep(n + 2);
    for (auto& k : keep) k = g() % 10 != 0;
    keep[2] = 0;
    std::vector<float> want(x), out(n + 2, 7.0f), in_place(x);
    for (size_t i = 1; i <= n; ++i) want[i] = keep[i] ? x[i] * scale : 0.0f;
    cpu::apply_keep(x.data() + 1, keep.data() + 1, scale, out.data() + 1, n);
    cpu::apply_keep(in_place.data() + 1, keep.data() + 1, scale, in_place.data() + 1, n);
    CAPTURE(n);
    for (size_t i = 1; i <= n; ++i) {
      CHECK(std::memcmp(&out[i], &want[i], sizeof(float)) == 0);
      CHECK(std::memcmp(&in_place[i], &want[i], sizeof(float)) == 0);
    }
    CHECK(out[0] == 7.0f);
    CHECK(out[n + 1] == 7.0f);
    CHECK(std::memcmp(&in_place[n + 1], &x[n + 1], sizeof(float)) == 0);
  }
}
