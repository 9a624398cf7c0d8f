#include "fma_peak.h"

#include <omp.h>

#include <chrono>
#include <string_view>

namespace bench {
namespace {

constexpr long kIterations = 50'000'000;
constexpr int kChains = 16;  // > FMA latency x ports, so the loop is throughput-bound

// Returns a value derived from every chain so the compiler keeps them all. V is a GCC vector of
// floats; inlined into a caller compiled for AVX-512 or AVX2+FMA, a*b+c becomes one FMA
// (-ffp-contract=fast is GCC's default outside ISO mode).
template <typename V>
__attribute__((always_inline)) inline float chains() {
  constexpr int lanes = sizeof(V) / sizeof(float);
  V acc[kChains];
  const V mul = V{} + 0.999999f, add = V{} + 1e-7f;
  for (int i = 0; i < kChains; ++i) acc[i] = V{} + static_cast<float>(i);
  for (long it = 0; it < kIterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * mul + add;
  }
  float sum = 0;
  for (int i = 0; i < kChains; ++i)
    for (int l = 0; l < lanes; ++l) sum += acc[i][l];
  return sum;
}

typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
__attribute__((target("avx512f"))) float chains_avx512() { return chains<V16>(); }
__attribute__((target("avx2,fma"))) float chains_avx2() { return chains<V8>(); }

}  // namespace

const char* fma_peak_isa() {
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2+fma";
  return "none";
}

double fma_peak_gflops(int threads) {
  const std::string_view isa = fma_peak_isa();
  if (isa == "none") return 0;
  const bool avx512 = isa == "avx512f";
  const double lanes = avx512 ? 16 : 8;
  double best = 0;
  volatile float sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const float s = avx512 ? chains_avx512() : chains_avx2();
#pragma omp critical
      sink = sink + s;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flop = 2.0 * lanes * kChains * static_cast<double>(kIterations) * threads;
    if (flop / seconds > best) best = flop / seconds;
  }
  return best / 1e9;
}

}  // namespace bench
