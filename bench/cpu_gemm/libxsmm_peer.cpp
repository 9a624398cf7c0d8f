#include "libxsmm_peer.h"

#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {
namespace {

// TPP's usual fp32 blocks; 32 x 32 x 64 measured fastest of {64,32} x {64,32} x 64 here.
constexpr int kBm = 32, kBn = 32, kBk = 64;

}  // namespace

const char* libxsmm_arch() {
  libxsmm_init();
  return libxsmm_get_target_arch();
}

double libxsmm_blocked_gflops(int m, int n, int k, int reps, int threads) {
  // libxsmm is column-major: row-major C[m,n] = A·B is column-major Cᵀ[n,m] = Bᵀ[n,k]·Aᵀ[k,m].
  const int rows = n, cols = m;
  if (rows % kBm || cols % kBn || k % kBk) return 0;
  libxsmm_init();
  const int row_blocks = rows / kBm, col_blocks = cols / kBn, k_blocks = k / kBk;
  std::vector<float> a(static_cast<size_t>(rows) * k, 0.5f), b(static_cast<size_t>(k) * cols, 0.25f),
      c(static_cast<size_t>(rows) * cols);
  const libxsmm_blasint lda = kBm, ldb = kBk, ldc = rows;
  const float alpha = 1, beta = 0;
  const int flags = LIBXSMM_GEMM_FLAGS('N', 'N'), prefetch = LIBXSMM_PREFETCH_NONE;
  const libxsmm_smmfunction_reducebatch_strd kernel = libxsmm_smmdispatch_reducebatch_strd(
      kBm, kBn, kBk, static_cast<libxsmm_blasint>(kBm) * kBk, static_cast<libxsmm_blasint>(kBk) * kBn, &lda, &ldb,
      &ldc, &alpha, &beta, &flags, &prefetch);
  if (kernel == nullptr) return 0;
  auto run = [&] {
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
    for (int cb = 0; cb < col_blocks; ++cb) {
      for (int rb = 0; rb < row_blocks; ++rb) {
        const unsigned long long count = static_cast<unsigned long long>(k_blocks);
        kernel(&a[static_cast<size_t>(rb) * k_blocks * kBm * kBk], &b[static_cast<size_t>(cb) * k_blocks * kBk * kBn],
               &c[static_cast<size_t>(cb) * kBn * rows + static_cast<size_t>(rb) * kBm], &count);
      }
    }
  };
  run();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * m * n * k / best / 1e9;
}

}  // namespace bench
