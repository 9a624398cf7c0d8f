// Helpers of the FP8 tests: skip (exit 77) on devices without FP8 matrix units, host quantization with
// the shared format maths (trainer/model/fp8_format.h), FP8 codes up and down.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "trainer/cuda/check.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/fp8_gemm.h"
#include "trainer/model/fp8_format.h"

namespace bert::cuda::test {

// Exits 77 (ctest SKIP) when device 0 cannot run FP8 GEMMs: an A100 says so instead of failing.
inline void require_fp8_device() {
  cudaDeviceProp prop{};
  BERT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (!has_fp8_matrix_units(prop.major, prop.minor)) {
    std::printf("SKIPPED: %s (sm_%d%d) has no FP8 matrix units\n", prop.name, prop.major, prop.minor);
    std::exit(77);
  }
}

inline std::vector<uint8_t> quantize(const std::vector<float>& v, float scale, model::Fp8Format f) {
  std::vector<uint8_t> q(v.size());
  for (size_t i = 0; i < v.size(); ++i) q[i] = model::fp8_encode(v[i] * scale, f);
  return q;
}

inline std::vector<float> dequantize(const std::vector<uint8_t>& q, float scale_inv, model::Fp8Format f) {
  std::vector<float> v(q.size());
  for (size_t i = 0; i < q.size(); ++i) v[i] = model::fp8_decode(q[i], f) * scale_inv;
  return v;
}

inline DeviceBuffer<float> scalar(float x) { return DeviceBuffer<float>::from({x}); }

}  // namespace bert::cuda::test
