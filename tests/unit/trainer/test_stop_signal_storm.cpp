// A storm of SIGTERM/SIGINT while gemm() runs: the trainer's stop signals must only set the flag, never
// land on a thread computing. oneDNN's JIT sgemm points rsp into a heap buffer of its own; a signal frame
// written there by the kernel corrupted the heap (a plain handler aborted here within 2 s). Its own binary:
// start_stop_signal_thread() changes the process's signal state for good. ctest runs it under oneDNN's
// sgemm and, where the CPU has bf16 matmuls, under oneDNN's bf16 matmul too.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/stop_signal.h"
#include "trainer/train_loop.h"

namespace {

using namespace bert;

// The tiny model's products (hidden 128, intermediate 512, 1024 tokens), forward and backward.
struct Shape {
  bool ta, tb;
  int m, n, k;
};
constexpr Shape kShapes[] = {{false, true, 1024, 512, 128}, {false, false, 1024, 128, 512},
                             {true, false, 128, 512, 1024}, {false, true, 1024, 128, 128}};

// Runs the products until `seconds` pass; returns how many elements of C missed k·a·b, which every one
// must hold exactly (small integers in bf16 too). Checked after the sender thread is joined.
size_t gemm_until(double seconds, cpu::MatmulPrecision precision) {
  size_t wrong = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    for (const Shape& s : kShapes) {
      std::vector<float> a(static_cast<size_t>(s.m) * s.k, 0.5f), b(static_cast<size_t>(s.k) * s.n, 0.25f),
          c(static_cast<size_t>(s.m) * s.n, -1.0f);
      cpu::gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), s.ta ? s.m : s.k, b.data(), s.tb ? s.k : s.n, 0.0f, c.data(),
                s.n, precision);
      for (float v : c) wrong += v != 0.125f * s.k;
    }
  }
  return wrong;
}

}  // namespace

TEST_CASE("SIGTERM/SIGINT storm during gemm(): flag set, no thread computing is interrupted") {
  trainer::start_stop_signal_thread();
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  CHECK(sigismember(&mask, SIGTERM) == 1);
  CHECK(sigismember(&mask, SIGINT) == 1);

  cpu::set_blas_threads(2);
  const bool bf16 = cpu::cpu_has_bf16_matmul();
  std::atomic<bool> done{false};
  std::thread sender([&] {
    for (long i = 0; !done.load(); ++i) {
      kill(getpid(), i % 2 ? SIGINT : SIGTERM);
      usleep(20);
    }
  });
  const size_t wrong_fp32 = gemm_until(2.0, cpu::MatmulPrecision::fp32);
  size_t wrong_bf16 = 0;
  if (bf16) {
    wrong_bf16 = gemm_until(2.0, cpu::MatmulPrecision::bf16);
  } else {
    MESSAGE("no bf16 matmul on this CPU: fp32 only");
  }
  done.store(true);
  sender.join();
  CHECK(wrong_fp32 == 0);
  CHECK(wrong_bf16 == 0);
  CHECK(trainer::g_stop_requested.load());
}
