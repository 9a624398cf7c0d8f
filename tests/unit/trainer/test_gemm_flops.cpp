// The GEMM counters: gemm_flops() is the exact 2·m·n·k of every product through gemm() (whole, or
// split into row blocks over OpenMP threads) and gemm_on_thread() (also from inside an OpenMP loop, as
// attention calls it), in fp32 and bf16; gemm_thread_seconds() and the shape profile account for the
// same products.
#include <doctest/doctest.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"

using namespace bert;

namespace {

uint64_t flops(int m, int n, int k) { return 2ull * static_cast<uint64_t>(m) * n * k; }

// A fixed sequence of products; returns the flops it must have counted. Buffers sized for the largest.
uint64_t run_sequence(cpu::MatmulPrecision precision) {
  const int big_m = 256, big_n = 96, big_k = 80;  // m ≥ 64 and m·n·k ≥ 2^18: gemm() splits rows when threads > 1
  std::vector<float> a(static_cast<size_t>(big_m) * big_k, 0.5f), b(static_cast<size_t>(big_k) * big_n, 0.25f),
      c(static_cast<size_t>(big_m) * big_n, 0.0f);
  uint64_t expect = 0;
  cpu::gemm(false, false, big_m, big_n, big_k, 1.0f, a.data(), big_k, b.data(), big_n, 0.0f, c.data(), big_n,
            precision);
  expect += flops(big_m, big_n, big_k);
  cpu::gemm(true, false, big_k, big_n, 40, 1.0f, a.data(), big_k, b.data(), big_n, 1.0f, c.data(), big_n, precision);
  expect += flops(big_k, big_n, 40);  // A stored [k, m]: its row blocks are column offsets
  cpu::gemm(false, true, 7, 5, 9, 1.0f, a.data(), 9, b.data(), 9, 0.0f, c.data(), 5, precision);  // small: one call
  expect += flops(7, 5, 9);
  cpu::gemm(false, false, 0, 5, 9, 1.0f, a.data(), 9, b.data(), 5, 0.0f, c.data(), 5, precision);  // empty: nothing
  cpu::gemm_on_thread(false, false, 13, 11, 3, 1.0f, a.data(), 3, b.data(), 11, 0.0f, c.data(), 11, precision);
  expect += flops(13, 11, 3);
  // attention's pattern: many products from an OpenMP loop, each on its own slice of C
  const int tasks = 40, tm = 6, tn = 4, tk = 8;
#pragma omp parallel for schedule(dynamic, 1) num_threads(2)
  for (int t = 0; t < tasks; ++t)
    cpu::gemm_on_thread(false, false, tm, tn, tk, 1.0f, a.data(), tk, b.data(), tn, 0.0f,
                        c.data() + static_cast<size_t>(t) * tm * tn, tn, precision);
  expect += tasks * flops(tm, tn, tk);
  return expect;
}

}  // namespace

TEST_CASE("gemm_flops counts 2*m*n*k per product: gemm's row split, gemm_on_thread, inside OpenMP loops") {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    cpu::reset_gemm_counters();
    CHECK(cpu::gemm_flops() == 0);
    const uint64_t expect = run_sequence(cpu::MatmulPrecision::fp32);
    CHECK(cpu::gemm_flops() == expect);
    const uint64_t again = run_sequence(cpu::MatmulPrecision::fp32);
    CHECK(cpu::gemm_flops() == expect + again);  // accumulates until reset
  }
  omp_set_num_threads(saved);
}

TEST_CASE("gemm_flops counts bf16 products too") {
  std::string isa;
  if (!cpu::cpu_has_bf16_matmul(&isa)) {
    MESSAGE("skipped: this CPU has " << isa);
    return;
  }
  cpu::reset_gemm_counters();
  const uint64_t expect = run_sequence(cpu::MatmulPrecision::bf16);
  const uint64_t counted = cpu::gemm_flops();
  CHECK(counted == expect);
}

TEST_CASE("the shape profile accounts for every product, its flops and its time") {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    cpu::set_gemm_shape_profile(false);
    cpu::reset_gemm_counters();
    CHECK(cpu::gemm_thread_seconds() == 0.0);
    run_sequence(cpu::MatmulPrecision::fp32);
    CHECK(cpu::gemm_shape_profile().empty());  // off: times summed, shapes not kept
    CHECK(cpu::gemm_thread_seconds() > 0.0);

    cpu::set_gemm_shape_profile(true);
    cpu::reset_gemm_counters();
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t expect = run_sequence(cpu::MatmulPrecision::fp32);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<cpu::GemmShapeTime> shapes = cpu::gemm_shape_profile();
    cpu::set_gemm_shape_profile(false);
    uint64_t flops_of_shapes = 0, calls = 0, attention_calls = 0;
    double seconds = 0;
    for (const auto& s : shapes) {
      flops_of_shapes += s.calls * flops(s.m, s.n, s.k);
      calls += s.calls;
      seconds += s.seconds;
      if (!s.ta && !s.tb && s.m == 6 && s.n == 4 && s.k == 8) attention_calls = s.calls;
    }
    CHECK(flops_of_shapes == expect);
    CHECK(attention_calls == 40);
    // gemm() x 3 (the first two split into 2 row blocks with 2 threads), gemm_on_thread, the 40 from the loop
    CHECK(calls == (threads == 1 ? 44u : 46u));
    CHECK(seconds == doctest::Approx(cpu::gemm_thread_seconds()).epsilon(1e-6));
    CHECK(seconds > 0.0);
    CHECK(seconds <= wall * threads + 1e-3);
  }
  omp_set_num_threads(saved);
}
