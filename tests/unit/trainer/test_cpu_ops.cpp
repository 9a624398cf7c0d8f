// CPU ops: BLAS GEMM against the plain-loop reference, dropout RNG properties, gradient checks of
// the whole model with dropout on (finite differences: the mask is a pure function of the counters).
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/trainer/h5_fixture.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"
#include "trainer/model/dropout_rng.h"
#include "trainer/model/init.h"

using namespace bert;

TEST_CASE("BLAS gemm matches the plain-loop reference for every transpose") {
  std::mt19937 gen(3);
  std::normal_distribution<float> n(0.f, 1.f);
  const int m = 7, nn = 5, k = 9;
  std::vector<float> a(m * k), b(k * nn), c1(m * nn), c2(m * nn);
  for (auto& x : a) x = n(gen);
  for (auto& x : b) x = n(gen);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      for (int i = 0; i < m * nn; ++i) c1[i] = c2[i] = n(gen);
      const int lda = ta ? m : k, ldb = tb ? k : nn;
      cpu::gemm(ta, tb, m, nn, k, 0.7f, a.data(), lda, b.data(), ldb, 0.3f, c1.data(), nn, cpu::MatmulPrecision::fp32);
      cpu::gemm_ref(ta, tb, m, nn, k, 0.7f, a.data(), lda, b.data(), ldb, 0.3f, c2.data(), nn);
      for (int i = 0; i < m * nn; ++i) CHECK(c1[i] == doctest::Approx(c2[i]).epsilon(1e-5));
    }
}

TEST_CASE("a oneDNN sgemm failing inside gemm()'s parallel row blocks is an exception, not std::terminate") {
  // Only oneDNN reports bad arguments by a status (blas.cpp throws it); the CBLAS libraries print and go on.
  if (cpu::blas_library() != cpu::BlasLibrary::onednn) return;
  const int saved_threads = omp_get_max_threads();
  omp_set_num_threads(2);  // gemm() splits rows only with 2+ threads: the loop OmpErrors guards
  const int m = 256, n = 256, k = 256;
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), c(static_cast<size_t>(m) * n);
  // lda 1 < k: invalid for a row-major untransposed A.
  CHECK_THROWS_AS(
      cpu::gemm(false, false, m, n, k, 1.0f, a.data(), 1, b.data(), n, 0.0f, c.data(), n, cpu::MatmulPrecision::fp32),
      std::runtime_error);
  omp_set_num_threads(saved_threads);
}

TEST_CASE("the fp32 BLAS is the one BERT_CPU_BLAS names (auto: MKL on Intel, oneDNN elsewhere with AVX-512)") {
  const char* env = std::getenv("BERT_CPU_BLAS");
  const std::string want = env ? env : "auto";
  const bool intel = __builtin_cpu_is("intel"), avx512 = __builtin_cpu_supports("avx512f");
  if (want == "mkl") CHECK(cpu::blas_library() == cpu::BlasLibrary::mkl);
  if (want == "onednn" || (want == "auto" && !intel && avx512))
    CHECK(cpu::blas_library() == cpu::BlasLibrary::onednn);
  if (want == "openblas" || (want == "auto" && !intel && !avx512))
    CHECK(cpu::blas_library() == cpu::BlasLibrary::openblas);
}

TEST_CASE("Philox4x32-10 known-answer vectors (Random123)") {
  // Random123's kat_vectors: philox4x32 10 rounds, counter/key all zeros, all ones, and the digits of pi.
  const model::Philox4 z = model::philox4x32_10(0, 0, 0, 0, 0, 0);
  CHECK(z.v[0] == 0x6627e8d5u);
  CHECK(z.v[1] == 0xe169c58du);
  CHECK(z.v[2] == 0xbc57ac4cu);
  CHECK(z.v[3] == 0x9b00dbd8u);
  const model::Philox4 f = model::philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  CHECK(f.v[0] == 0x408f276du);
  CHECK(f.v[1] == 0x41c83b0eu);
  CHECK(f.v[2] == 0xa20bc7c6u);
  CHECK(f.v[3] == 0x6d5451fdu);
  const model::Philox4 pi =
      model::philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  CHECK(pi.v[0] == 0xd16cfe09u);
  CHECK(pi.v[1] == 0x94fdccebu);
  CHECK(pi.v[2] == 0x5001e420u);
  CHECK(pi.v[3] == 0x24126ea1u);
}

TEST_CASE("dropout masks: rate, and independent streams, steps and ranks") {
  model::DropoutStream a{7, 0, 3, 1}, b{7, 0, 4, 1}, c{7, 1, 3, 1}, d{7, 0, 3, 2};
  int dropped = 0, same_b = 0, same_c = 0, same_d = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const bool ka = a.keep(i, 0.1f);
    dropped += !ka;
    same_b += ka == b.keep(i, 0.1f);
    same_c += ka == c.keep(i, 0.1f);
    same_d += ka == d.keep(i, 0.1f);
  }
  CHECK(dropped / double(n) == doctest::Approx(0.1).epsilon(0.05));
  // Independent masks agree on 0.9² + 0.1² = 82% of the elements.
  for (int s : {same_b, same_c, same_d}) CHECK(s / double(n) == doctest::Approx(0.82).epsilon(0.02));
  CHECK(a.keep(12345, 0.1f) == model::DropoutStream{7, 0, 3, 1}.keep(12345, 0.1f));
}

TEST_CASE("attention dropout masks (16 bits an element): rate, independent steps, the halves of the words") {
  const model::DropoutStream a{7, 0, 3, 1}, b{7, 0, 4, 1};
  int dropped = 0, same_b = 0, same_hidden = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    const bool ka = a.keep_attention(i, 0.1f);
    dropped += !ka;
    same_b += ka == b.keep_attention(i, 0.1f);
    same_hidden += ka == a.keep(i, 0.1f);
  }
  CHECK(dropped / double(n) == doctest::Approx(0.1).epsilon(0.03));
  CHECK(same_b / double(n) == doctest::Approx(0.82).epsilon(0.02));
  CHECK(same_hidden / double(n) == doctest::Approx(0.82).epsilon(0.02));  // not the hidden draw's bits
  // element 8q + i: the low (i even) or high half of word i / 2 of block q, dropped below p * 2^16
  for (uint64_t q : {uint64_t{0}, uint64_t{5}, uint64_t{1} << 35}) {
    const model::Philox4 r = a.block(q);
    for (int i = 0; i < 8; ++i) {
      const uint32_t half = (r.v[i / 2] >> (16 * (i % 2))) & 0xffffu;
      CHECK(a.keep_attention(8 * q + i, 0.5f) == (half >= 32768u));
    }
  }
  CHECK(a.keep_bits8(0, 0.f) == 0xffu);
  // keep_bits8's integer threshold is dropped16's float rule, for every 16-bit value
  for (const float p : {0.f, 1.f / 65536, 0.1f, 0.25f, 0.5f, 0.9999f, 1.f}) {
    const uint32_t thr = model::DropoutStream::drop_threshold16(p);
    int differ = 0;
    for (uint32_t half = 0; half < 65536; ++half) differ += (half >= thr) == model::DropoutStream::dropped16(half, p);
    CAPTURE(p);
    CHECK(differ == 0);
  }
}

TEST_CASE("gradients with dropout on agree with finite differences") {
  test::H5File f(test::reference_path("bert_tiny_packed.h5"));
  const model::ParamLayout layout = model::make_param_layout(test::fixture_config(f));
  const data::Batch batch = test::fixture_batch(f);
  std::vector<float> params = test::fixture_flat(f, layout, "/weights");
  cpu::BertCpu model(layout);
  const bert::model::DropoutContext d{true, 99, 0, 5};
  std::vector<float> grads(layout.total, 0.0f);
  const double loss0 = model.forward(batch, params.data(), d).loss;
  model.backward(params.data(), grads.data(), 1.0f);
  CHECK(loss0 != doctest::Approx(model.forward(batch, params.data(), {}).loss));  // dropout changes the loss

  // Central differences on the largest-gradient element of a few tensors.
  for (const char* name : {"bert/encoder/layer_0/attention/self/query/kernel", "bert/encoder/layer_1/output/dense/kernel",
                           "bert/embeddings/LayerNorm/gamma", "cls/predictions/transform/dense/kernel",
                           "bert/pooler/dense/kernel"}) {
    const model::ParamInfo* p = layout.find(name);
    size_t best = p->offset;
    for (size_t i = p->offset; i < p->offset + p->size; ++i)
      if (std::fabs(grads[i]) > std::fabs(grads[best])) best = i;
    const float h = 1e-2f, keep = params[best];
    params[best] = keep + h;
    const double up = model.forward(batch, params.data(), d).loss;
    params[best] = keep - h;
    const double down = model.forward(batch, params.data(), d).loss;
    params[best] = keep;
    INFO(name << ": analytic " << grads[best] << " numeric " << (up - down) / (2 * h));
    CHECK((up - down) / (2 * h) == doctest::Approx(grads[best]).epsilon(2e-2));
  }
}

TEST_CASE("init: truncated normal 0.02, gamma 1, biases 0, deterministic in the seed") {
  const model::ParamLayout l = model::make_param_layout(model::bert_config_for_size(model::ModelSize::Tiny));
  std::vector<float> a, b, c;
  model::init_params(l, 5, a);
  model::init_params(l, 5, b);
  model::init_params(l, 6, c);
  CHECK(a == b);
  CHECK(a != c);
  const model::ParamInfo* w = l.find("bert/encoder/layer_0/intermediate/dense/kernel");
  double s2 = 0, mx = 0;
  for (size_t i = 0; i < w->size; ++i) s2 += a[w->offset + i] * a[w->offset + i], mx = std::max(mx, double(std::fabs(a[w->offset + i])));
  CHECK(std::sqrt(s2 / w->size) == doctest::Approx(0.02 * 0.88).epsilon(0.05));  // std of N(0,1) cut at ±2: 0.88
  CHECK(mx <= 0.04 + 1e-7);
  CHECK(a[l.find("bert/embeddings/LayerNorm/gamma")->offset] == 1.0f);
  CHECK(a[l.find("cls/predictions/output_bias")->offset] == 0.0f);
}

TEST_CASE("param layout: BERT-large has 336,226,108 parameters in 398 tensors") {
  model::BertConfig c = model::bert_config_for_size(model::ModelSize::Large);
  const model::ParamLayout l = model::make_param_layout(c);
  CHECK(l.tensors.size() == 398);
  CHECK(l.num_params() == 336226108);
  for (const auto& t : l.tensors) CHECK(t.offset % model::kParamAlign == 0);
}
