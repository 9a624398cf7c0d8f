// Helpers for the CUDA kernel tests: random bf16-representable inputs (so GPU and CPU see the same
// numbers), bf16 <-> float vectors, NaN-poisoned outputs (an unwritten element fails the check) and
// the relative L2 error ||got - ref|| / ||ref|| used for every comparison.
//
// Tolerances (METHOD: bf16 operands land between 1e-3 and 1e-2): outputs stored in bf16 are
// compared at 1e-2; fp32 outputs of fp32 arithmetic (statistics, LAMB) at 1e-5..1e-4.
#pragma once
#include <cuda_bf16.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "trainer/cuda/device_buffer.h"
#include "trainer/model/params.h"

namespace bert::cuda::test {

using bf16 = __nv_bfloat16;

inline float round_bf16(float x) { return __bfloat162float(__float2bfloat16(x)); }

inline std::vector<float> random_vec(size_t n, std::mt19937_64& g, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = round_bf16(u(g));
  return v;
}

inline std::vector<bf16> to_bf16(const std::vector<float>& v) {
  std::vector<bf16> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = __float2bfloat16(v[i]);
  return r;
}
inline std::vector<float> to_f32(const std::vector<bf16>& v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = __bfloat162float(v[i]);
  return r;
}

inline DeviceBuffer<bf16> upload_bf16(const std::vector<float>& v) { return DeviceBuffer<bf16>::from(to_bf16(v)); }
inline std::vector<float> download_bf16(const DeviceBuffer<bf16>& b) { return to_f32(b.download()); }

// 0xFF bytes: NaN in both bf16 and fp32.
template <typename T>
DeviceBuffer<T> poisoned(size_t n) {
  DeviceBuffer<T> b(n);
  if (n) BERT_CUDA_CHECK(cudaMemset(b.get(), 0xFF, n * sizeof(T)));
  return b;
}

// Relative L2 error; NaN anywhere in `got` gives +inf.
inline double rel_l2(const std::vector<float>& got, const std::vector<float>& ref) {
  REQUIRE(got.size() == ref.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    const double d = static_cast<double>(got[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Every parameter tensor of `got` within `tol` relative L2 of `ref`, except those whose reference is
// negligible (below 1e-8 of the whole's squared norm: e.g. positions no sequence reached).
inline void check_each_tensor(const model::ParamLayout& layout, const std::vector<float>& got,
                              const std::vector<float>& ref, double tol) {
  double total = 0;
  for (float v : ref) total += static_cast<double>(v) * v;
  for (const auto& p : layout.tensors) {
    std::vector<float> a(got.begin() + p.offset, got.begin() + p.offset + p.size);
    std::vector<float> b(ref.begin() + p.offset, ref.begin() + p.offset + p.size);
    double nb = 0;
    for (float v : b) nb += static_cast<double>(v) * v;
    if (nb < 1e-8 * total) continue;
    CAPTURE(p.name);
    CHECK(rel_l2(a, b) < tol);
  }
}

inline void sync() { BERT_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace bert::cuda::test
