// cuda_convergence_cpu_reference OUT.json: the CPU trainer's trajectory of cuda_convergence's case
// (convergence_case.h), computed where the stage is made (scripts/bench-gpu stage) and shipped beside
// the test binary. Needs no GPU.
#include <chrono>
#include <cstdio>
#include <exception>

#include "tests/gpu/cuda/convergence_case.h"
#include "tests/gpu/cuda/cpu_threads.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cuda_convergence_cpu_reference OUT.json\n");
    return 2;
  }
  try {
    bert::cuda::test::set_cpu_threads();
    const auto t0 = std::chrono::steady_clock::now();
    const auto c = bert::cuda::test::make_convergence_case();
    const auto t = bert::cuda::test::cpu_trajectory(c);
    bert::cuda::test::write_trajectory(t, argv[1]);
    std::printf("cuda_convergence CPU trajectory: loss %.4f -> %.4f, eval MLM %lld / %lld, %.1f s -> %s\n", t.first,
                t.last, static_cast<long long>(t.correct), static_cast<long long>(t.masked),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), argv[1]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_convergence_cpu_reference: %s\n", e.what());
    return 1;
  }
}
