// bf16 GEMM (oneDNN) against the fp32 plain-loop reference, and the bf16 model step against the
// PyTorch float64 fixtures. Tolerances from bf16's 8-bit mantissa (relative rounding 2^-9 ≈ 2e-3 per
// operand): a product of rounded operands is off by ~4e-3 relative per term, and a dot product of
// k random-sign terms by about that relative to its norm, so 1e-2 relative over a tensor. Skipped
// (with a message) on a CPU without bf16 matrix instructions.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/trainer/h5_fixture.h"
#include "tests/unit/trainer/attention_kept.h"
#include "tests/unit/trainer/have_bf16.h"
#include "tests/unit/trainer/rel_error.h"
#include "trainer/cpu/attention.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cpu/bf16_column_sums.h"
#include "trainer/cpu/bf16_copy.h"
#include "trainer/cpu/bf16_round.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"

using namespace bert;


TEST_CASE("to_bf16 rounds to nearest even, keeps NaN and flushes subnormals as vcvtneps2bf16 does") {
  const float x[] = {1.0f, 1.00390625f /* halfway: even → 1 */, 1.01171875f /* halfway: even → 1.015625 */,
                     -2.5f, NAN, INFINITY, 1e-39f /* subnormal */, -3e-40f, FLT_MAX /* rounds up to inf */};
  constexpr size_t n = sizeof x / sizeof x[0];
  uint16_t y[n];
  cpu::to_bf16(x, y, n);
  CHECK(y[0] == 0x3f80);
  CHECK(y[1] == 0x3f80);
  CHECK(y[2] == 0x3f82);
  CHECK(y[3] == 0xc020);
  CHECK((y[4] & 0x7f80) == 0x7f80);
  CHECK((y[4] & 0x7f) != 0);
  CHECK(y[5] == 0x7f80);
  CHECK(y[6] == 0x0000);
  CHECK(y[7] == 0x8000);
  CHECK(y[8] == 0x7f80);
}

TEST_CASE("round_to_bf16: the CPU's instruction and the plain loop give the same bits") {
  if (!cpu::round_to_bf16_is_native()) {
    MESSAGE("skipped: no avx512_bf16 on this CPU (the loop is the only path)");
    return;
  }
  // Random bit patterns cover every exponent (subnormals, NaNs and infinities included) and ties;
  // lengths not a multiple of 16 reach the masked tail.
  std::mt19937 gen(7);
  for (const size_t n : {size_t{1}, size_t{15}, size_t{16}, size_t{1000}, size_t{1} << 16}) {
    std::vector<float> x(n);
    for (float& v : x) {
      uint32_t u = gen();
      if (gen() % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;  // exactly halfway
      std::memcpy(&v, &u, 4);
    }
    std::vector<uint16_t> native(n), loop(n);
    cpu::round_to_bf16(x.data(), native.data(), n);
    cpu::round_to_bf16_loop(x.data(), loop.data(), n);
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i) differ += native[i] != loop[i];
    CHECK_MESSAGE(differ == 0, n << " elements");
  }
}

TEST_CASE("round_to_bf16_stream: the same bits as the loop at every alignment, whole lines streamed or not") {
  // Offsets 0..33 elements into a 64-byte aligned buffer: a head before the first whole line (or none),
  // streamed lines, a tail; lengths shorter than a line too. Neighbours of the range stay untouched.
  std::mt19937 gen(11);
  std::vector<float> x(4200);
  for (float& v : x) {
    uint32_t u = gen();
    if (gen() % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;
    std::memcpy(&v, &u, 4);
  }
  alignas(64) static uint16_t out[4300];
  for (size_t offset = 0; offset < 34; ++offset)
    for (const size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{95}, size_t{4096}}) {
      std::fill(std::begin(out), std::end(out), uint16_t{0x1234});
      cpu::round_to_bf16_stream(x.data(), out + offset, n);
      cpu::stream_fence();
      std::vector<uint16_t> loop(n);
      cpu::round_to_bf16_loop(x.data(), loop.data(), n);
      size_t differ = 0;
      for (size_t i = 0; i < n; ++i) differ += out[offset + i] != loop[i];
      CHECK_MESSAGE(differ == 0, "offset " << offset << ", " << n << " elements");
      CHECK((offset == 0 || out[offset - 1] == 0x1234));
      CHECK(out[offset + n] == 0x1234);
    }
}

TEST_CASE("bf16 GEMM matches the fp32 reference within 1e-2 for every transpose, alpha and beta") {
  if (!test::have_bf16()) return;
  const int m = 37, n = 70, k = 300;
  std::mt19937 g(3);
  std::normal_distribution<float> d(0, 1);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (float beta : {0.0f, 1.0f}) {
        CAPTURE(ta);
        CAPTURE(tb);
        CAPTURE(beta);
        const int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;  // padded leading dimensions
        std::vector<float> a(static_cast<size_t>(ta ? k : m) * lda), b(static_cast<size_t>(tb ? n : k) * ldb),
            c0(static_cast<size_t>(m) * ldc);
        for (std::vector<float>* v : {&a, &b, &c0})
          for (auto& x : *v) x = d(g);
        std::vector<float> c = c0, c_ref = c0;
        cpu::gemm_bf16(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
        cpu::gemm_ref(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, beta, c_ref.data(), ldc);
        CHECK(test::rel_error(c, c_ref) < 1e-2);
        CHECK(test::rel_error(c, c_ref) > 1e-5);  // it did round to bf16
        for (int i = 0; i < m; ++i)   // the padding of C is untouched
          for (int j = n; j < ldc; ++j) CHECK(c[static_cast<size_t>(i) * ldc + j] == c0[static_cast<size_t>(i) * ldc + j]);
      }
}

TEST_CASE("gemm_bias: the bias in oneDNN's epilogue gives the bits of C filled with it and beta 1; fp32 likewise") {
  const int m = 37, n = 70, k = 300;
  std::mt19937 g(4);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), bias(n);
  for (std::vector<float>* v : {&a, &b, &bias})
    for (auto& x : *v) x = d(g);
  for (const auto precision : {cpu::MatmulPrecision::fp32, cpu::MatmulPrecision::bf16}) {
    if (precision == cpu::MatmulPrecision::bf16 && !test::have_bf16()) continue;
    CAPTURE(precision == cpu::MatmulPrecision::bf16);
    const int ldc = n + 2;  // the dense-scratch path too (bf16)
    for (const int ld : {n, ldc}) {
      std::vector<float> c(static_cast<size_t>(m) * ld, -7.0f), filled(c.size(), -7.0f);
      cpu::gemm_bias(false, false, m, n, k, a.data(), k, b.data(), n, bias.data(), c.data(), ld, precision);
      for (int i = 0; i < m; ++i) std::copy(bias.begin(), bias.end(), filled.begin() + static_cast<std::ptrdiff_t>(i) * ld);
      cpu::gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 1.0f, filled.data(), ld, precision);
      CHECK(c == filled);
      std::vector<float> ref(c.size(), -7.0f);
      for (int i = 0; i < m; ++i) std::copy(bias.begin(), bias.end(), ref.begin() + static_cast<std::ptrdiff_t>(i) * ld);
      cpu::gemm_ref(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 1.0f, ref.data(), ld);
      CHECK(test::rel_error(c, ref) < (precision == cpu::MatmulPrecision::bf16 ? 1e-2 : 1e-5));
    }
  }
}

TEST_CASE("round_to_bf16_with_column_sums: the rounding's bits, the column sums, the same at 1 and 2 threads") {
  const int t = 300, n = 700;  // blocks of 32 rows and a partial one
  std::mt19937 g(17);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> dy(static_cast<size_t>(t) * n), db0(n);
  for (auto& x : dy) x = d(g);
  for (auto& x : db0) x = d(g);
  std::vector<uint16_t> expect16(dy.size());
  cpu::round_to_bf16_loop(dy.data(), expect16.data(), dy.size());
  for (const bool accumulate : {false, true}) {
    CAPTURE(accumulate);
    std::vector<double> sums(n);
    for (int j = 0; j < n; ++j) {
      double s = accumulate ? db0[static_cast<size_t>(j)] : 0.0;
      for (int r = 0; r < t; ++r) s += dy[static_cast<size_t>(r) * n + j];
      sums[static_cast<size_t>(j)] = s;
    }
    std::vector<float> db_by_threads[2];
    for (const int threads : {1, 2}) {
      std::vector<uint16_t> y16(dy.size());
      std::vector<float> db = db0;
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      cpu::round_to_bf16_with_column_sums(dy.data(), t, n, y16.data(), db.data(), accumulate);
      omp_set_num_threads(before);
      CHECK(y16 == expect16);
      double worst = 0;
      for (int j = 0; j < n; ++j) worst = std::max(worst, std::abs(db[static_cast<size_t>(j)] - sums[static_cast<size_t>(j)]));
      CHECK(worst < 1e-3);  // 300 terms of ~1 summed in float
      db_by_threads[threads - 1] = db;
    }
    CHECK(db_by_threads[0] == db_by_threads[1]);
  }
}

TEST_CASE("bf16 GEMM reads operands inside the registered bf16 copy: the same bits as rounding them per call") {
  if (!test::have_bf16()) return;
  const int m = 29, n = 48, k = 200;
  std::mt19937 g(5);
  std::normal_distribution<float> d(0, 1);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      CAPTURE(ta);
      CAPTURE(tb);
      const int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5;
      // A and B at offsets inside one "weights" buffer, with padded leading dimensions
      const size_t a_size = static_cast<size_t>(ta ? k : m) * lda, b_size = static_cast<size_t>(tb ? n : k) * ldb;
      std::vector<float> w(7 + a_size + 11 + b_size);
      for (auto& x : w) x = d(g);
      const float* a = w.data() + 7;
      const float* b = w.data() + 7 + a_size + 11;
      std::vector<float> per_call(static_cast<size_t>(m) * n), mirrored(per_call.size());
      cpu::gemm_bf16(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, per_call.data(), n);
      cpu::Bf16Copy copy;
      copy.refresh(w.data(), w.size());
      cpu::gemm_bf16(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, mirrored.data(), n);
      CHECK(mirrored == per_call);
      // proof the copy is what was read: change it, not the fp32 buffer
      for (size_t i = 0; i < w.size(); ++i) copy.data()[i] = 0x3f80;  // 1.0
      cpu::gemm_bf16(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, mirrored.data(), n);
      CHECK(mirrored[0] == doctest::Approx(k));
    }
  // unregistered again (the copy went out of scope): a fresh buffer is rounded per call
  std::vector<float> a(static_cast<size_t>(m) * k, 2.0f), b(static_cast<size_t>(k) * n, 0.5f), c(static_cast<size_t>(m) * n);
  cpu::gemm_bf16(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  CHECK(c[0] == doctest::Approx(k));
}

TEST_CASE("bf16 attention (its GEMMs in bf16) matches the fp32 reference: forward and backward 1e-2 relative") {
  if (!test::have_bf16()) return;
  // BERT's head size; three sequences of different lengths (a packed row and a padded one)
  const int heads = 2, d = 64, hidden = heads * d, seq_len = 80;
  const std::vector<int32_t> start = {0, 77, 100, 180}, first_flat = {0, 80, 160};
  const int T = start.back(), S = 3;
  const std::vector<int64_t> off = cpu::attention_prob_offsets(start.data(), S, heads);
  const cpu::AttentionShape sh{heads, d, seq_len, start.data(), first_flat.data(), S, off.data()};
  const size_t np = static_cast<size_t>(off[S]), nt = static_cast<size_t>(T) * hidden;
  std::mt19937 g(7);
  std::normal_distribution<float> nd(0, 1);
  std::vector<float> q(nt), k(nt), v(nt), dctx(nt);
  for (std::vector<float>* x : {&q, &k, &v, &dctx})
    for (auto& e : *x) e = nd(g);
  for (float p : {0.0f, 0.1f}) {
    CAPTURE(p);
    const model::DropoutStream rng{13, 0, 3, model::dropout_stream_id(0, 0)};
    std::vector<float> probs(np), probs_ref(np), ctx(nt), ctx_ref(nt);
    std::vector<uint8_t> keep(np), keep_ref(np);
    cpu::attention_forward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), ctx.data(), rng, p,
                           cpu::MatmulPrecision::bf16);
    std::vector<float> dq(nt), dk(nt), dv(nt), dq_ref(nt), dk_ref(nt), dv_ref(nt);
    cpu::attention_backward(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(), dq.data(),
                            dk.data(), dv.data(), p, cpu::MatmulPrecision::bf16);
    // the dropped probabilities kept by the forward for the backward (as the model runs): the same bits
    test::check_kept_dropped_same_bits<uint16_t>(sh, rng, p, {q, k, v, dctx, ctx, dq, dk, dv});
    cpu::attention_forward_ref(sh, q.data(), k.data(), v.data(), probs_ref.data(), keep_ref.data(), ctx_ref.data(),
                               rng, p);
    cpu::attention_backward_ref(sh, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(),
                                dq_ref.data(), dk_ref.data(), dv_ref.data(), p);
    CHECK(keep == keep_ref);  // the dropout mask does not depend on the precision
    const double e_probs = test::rel_error(probs, probs_ref), e_ctx = test::rel_error(ctx, ctx_ref);
    const double e_dq = test::rel_error(dq, dq_ref), e_dk = test::rel_error(dk, dk_ref),
                 e_dv = test::rel_error(dv, dv_ref);
    MESSAGE("p " << p << ": probs " << e_probs << ", ctx " << e_ctx << ", dq " << e_dq << ", dk " << e_dk << ", dv "
                 << e_dv);
    for (double e : {e_probs, e_ctx, e_dq, e_dk, e_dv}) {
      CHECK(e < 1e-2);
      CHECK(e > 1e-5);  // it did run in bf16
    }
  }
}

TEST_CASE("bf16 model step matches the PyTorch fixtures: loss 1e-2, logits and gradients 5e-2 relative") {
  if (!test::have_bf16()) return;
  for (const char* file : {"bert_tiny_padded.h5", "bert_tiny_packed.h5"}) {
    CAPTURE(file);
    test::H5File f(test::reference_path(file));
    const model::ParamLayout layout = model::make_param_layout(test::fixture_config(f));
    const data::Batch batch = test::fixture_batch(f);
    const std::vector<float> params = test::fixture_flat(f, layout, "/weights");
    cpu::Bf16Copy params16;  // as CpuBackend: the GEMMs read the weights' bf16 copy
    params16.refresh(params.data(), params.size());
    cpu::BertCpu model(layout, cpu::MatmulPrecision::bf16);
    const model::StepStats st = model.forward(batch, params.data(), model::DropoutContext{});
    CHECK(st.loss == doctest::Approx(f.scalar<double>("/out/loss")).epsilon(1e-2));
    CHECK(test::rel_error(model.mlm_logits().data(), f.read<double>("/out/mlm_logits")) < 5e-2);
    std::vector<float> grads(layout.total, 0.0f);
    model.backward(params.data(), grads.data(), 1.0f);
    double worst = 0;
    std::string worst_name;
    for (const auto& t : layout.tensors) {
      const std::vector<double> ref = f.read<double>("/grad/" + t.name);
      double den = 0;
      for (double r : ref) den += r * r;
      if (std::sqrt(den) < 1e-6) continue;  // zero in theory (attention key biases): rounding noise only
      const double err = test::rel_error(grads.data() + t.offset, ref);
      if (err > worst) worst = err, worst_name = t.name;
    }
    INFO("worst gradient " << worst_name << ": " << worst);
    CHECK(worst < 5e-2);
    MESSAGE(std::string(file) << ": bf16 loss " << st.loss << " vs " << f.scalar<double>("/out/loss") << ", worst gradient "
                 << worst_name << " " << worst);
  }
}

// On a CPU without bf16 matrix instructions (AVX2 only: ctest trainer_unit_tests_avx2 makes oneDNN
// one with ONEDNN_MAX_CPU_ISA=AVX2) a bf16 product is one error line naming the feature, not an abort.
TEST_CASE("gemm_bf16 without bf16 matrix instructions throws one line naming the CPU feature") {
  const char* limit = std::getenv("ONEDNN_MAX_CPU_ISA");
  const bool limited = limit && std::string(limit) == "AVX2";
  if (limited) REQUIRE_FALSE(cpu::cpu_has_bf16_matmul());
  std::vector<float> a(8 * 8, 1.0f), b(8 * 8, 1.0f), c(8 * 8, 0.0f);
  auto product = [&] { cpu::gemm_bf16(false, false, 8, 8, 8, 1.0f, a.data(), 8, b.data(), 8, 0.0f, c.data(), 8); };
  if (cpu::cpu_has_bf16_matmul()) {
    product();
    CHECK(c[0] == doctest::Approx(8.0f));
  } else {
    std::string what;
    try {
      product();
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    CHECK(what.find("avx512_bf16 or AMX-BF16") != std::string::npos);
    CHECK(what.find("oneDNN's instruction set here: avx2") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}
