// The two peaks a profile's floors are measured against, on this device, in this run: the rate of a
// large bf16 GEMM through the trainer's own cuBLASLt path (trainer/cuda/gemm.h: fp32 accumulate, bf16
// out), and the device-to-device copy bandwidth (bytes read + written per second).
#pragma once
#include <cuda_runtime.h>

namespace bert::bench {

struct DevicePeaks {
  double gemm_flop_per_s = 0;
  double copy_bytes_per_s = 0;
};

// n x n x n GEMM (default 8192) and a copy of `copy_bytes` (default 1 GiB), each the median of `reps`
// timed runs after two untimed ones. Allocates and frees its buffers (~1.4 GB at the defaults).
DevicePeaks measure_device_peaks(cudaStream_t stream, int n = 8192, size_t copy_bytes = size_t{1} << 30, int reps = 10);

}  // namespace bert::bench
