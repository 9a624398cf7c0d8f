#include "bench/trainer_throughput/device_peaks.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "trainer/cuda/check.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/gemm.h"

namespace bert::bench {
namespace {

double median_ms(cudaStream_t stream, int reps, const std::function<void()>& work) {
  cudaEvent_t a, b;
  BERT_CUDA_CHECK(cudaEventCreate(&a));
  BERT_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int i = 0; i < reps + 2; ++i) {
    BERT_CUDA_CHECK(cudaEventRecord(a, stream));
    work();
    BERT_CUDA_CHECK(cudaEventRecord(b, stream));
    BERT_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    BERT_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    if (i >= 2) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

DevicePeaks measure_device_peaks(cudaStream_t stream, int n, size_t copy_bytes, int reps) {
  DevicePeaks p;
  {
    const size_t nn = static_cast<size_t>(n) * n;
    cuda::DeviceBuffer<__nv_bfloat16> x(nn), w(nn), y(nn);
    // Small values, not zeros: the tensor cores' power (and so their clock) depends on the data.
    std::vector<__nv_bfloat16> h(nn);
    for (size_t i = 0; i < nn; ++i) h[i] = __float2bfloat16(static_cast<float>(static_cast<int>(i % 17) - 8) / 64.f);
    x.upload(h);
    w.upload(h);
    cuda::LtContext lt;
    cuda::Gemm gemm(lt);
    const double ms = median_ms(stream, reps, [&] {
      gemm.forward(x.get(), w.get(), cuda::WeightLayout::KernelInOut, nullptr, y.get(), n, n, n, false, nullptr, stream);
    });
    p.gemm_flop_per_s = 2.0 * n * static_cast<double>(n) * n / (ms / 1e3);
  }
  {
    cuda::DeviceBuffer<unsigned char> a(copy_bytes), b(copy_bytes);
    BERT_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, copy_bytes, stream));
    const double ms = median_ms(stream, reps, [&] {
      BERT_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream));
    });
    p.copy_bytes_per_s = 2.0 * static_cast<double>(copy_bytes) / (ms / 1e3);
  }
  return p;
}

}  // namespace bert::bench
