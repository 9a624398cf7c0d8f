// The threads of the CPU references in the CUDA tests (gpu_main.cpp, and the staged CPU trajectory of
// cuda_convergence): as in the trainer (trainer/train_loop.cpp), OpenMP threads over the CPUs this
// process may use, each running the BLAS single-threaded. Left to itself OpenBLAS (pthreads) threads
// every product a second time over all CPUs inside each OpenMP thread, and the two pools spin against
// each other: cuda_convergence's 300 CPU steps did not finish in 144 s on a 16-core H100 machine.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"

namespace bert::cuda::test {

// CPUs the cgroup (v2 cpu.max: "QUOTA PERIOD" or "max PERIOD") lets this process use, rounded up; 0 when
// unlimited or unknown. A container limited by quota still shows every host CPU to OpenMP.
inline int cgroup_cpu_limit() {
  std::ifstream f("/sys/fs/cgroup/cpu.max");
  std::string quota;
  long period = 0;
  if (!(f >> quota >> period) || quota == "max" || period <= 0) return 0;
  const long q = std::atol(quota.c_str());
  return q > 0 ? static_cast<int>((q + period - 1) / period) : 0;
}

inline void set_cpu_threads() {
  const int affinity = omp_get_max_threads();
  const int limit = cgroup_cpu_limit();
  const int threads = limit > 0 ? std::min(affinity, limit) : affinity;
  omp_set_num_threads(threads);
  bert::cpu::set_blas_threads(threads);
  std::printf("cpu references: %d OpenMP thread(s) (OpenMP default %d, cgroup limit %s), %s GEMMs one thread each\n",
              threads, affinity, limit > 0 ? std::to_string(limit).c_str() : "none",
              bert::cpu::blas_library_name(bert::cpu::blas_library()));
}

}  // namespace bert::cuda::test
