#pragma once
// The core's own fp32 ceiling: GFLOP/s of independent FMA chains held in registers (no loads), on
// `threads` OpenMP threads at once, AVX-512 where the CPU has it, else AVX2+FMA. Every GEMM figure
// cpu_gemm prints is read against it. Returns 0 on a CPU with neither.
namespace bench {
double fma_peak_gflops(int threads);
const char* fma_peak_isa();
}  // namespace bench
