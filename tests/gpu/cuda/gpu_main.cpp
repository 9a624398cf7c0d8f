// main() of every CUDA test binary: without a CUDA device the binary prints a visible skip and exits
// 77 (ctest SKIP_RETURN_CODE); with one, it sets up the CPU references' threads as the trainer does and
// runs the doctest cases.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"

namespace {

// CPUs the cgroup (v2 cpu.max: "QUOTA PERIOD" or "max PERIOD") lets this process use, rounded up; 0 when
// unlimited or unknown. A container limited by quota still shows every host CPU to OpenMP.
int cgroup_cpu_limit() {
  std::ifstream f("/sys/fs/cgroup/cpu.max");
  std::string quota;
  long period = 0;
  if (!(f >> quota >> period) || quota == "max" || period <= 0) return 0;
  const long q = std::atol(quota.c_str());
  return q > 0 ? static_cast<int>((q + period - 1) / period) : 0;
}

// The CPU references (BertCpu, optim::Lamb) as in the trainer (trainer/train_loop.cpp): OpenMP threads
// over the CPUs this process may use, each running the BLAS single-threaded. Left to itself OpenBLAS
// (pthreads) threads every product a second time over all CPUs inside each OpenMP thread, and the two
// pools spin against each other: cuda_convergence's 300 CPU steps did not finish in 144 s on a 16-core
// H100 machine.
void set_cpu_threads() {
  const int affinity = omp_get_max_threads();
  const int limit = cgroup_cpu_limit();
  const int threads = limit > 0 ? std::min(affinity, limit) : affinity;
  omp_set_num_threads(threads);
  bert::cpu::set_blas_threads(threads);
  std::printf("cpu references: %d OpenMP thread(s) (OpenMP default %d, cgroup limit %s), %s GEMMs one thread each\n",
              threads, affinity, limit > 0 ? std::to_string(limit).c_str() : "none",
              bert::cpu::blas_library_name(bert::cpu::blas_library()));
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  set_cpu_threads();
  std::fflush(stdout);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
