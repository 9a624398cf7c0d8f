// main() of every CUDA test binary: without a CUDA device the binary prints a visible skip and exits
// 77 (ctest SKIP_RETURN_CODE); with one, it sets up the CPU references' threads as the trainer does and
// runs the doctest cases.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/gpu/cuda/cpu_threads.h"

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  bert::cuda::test::set_cpu_threads();
  std::fflush(stdout);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
