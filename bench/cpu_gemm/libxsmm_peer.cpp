#include "libxsmm_peer.h"

#include <libxsmm.h>

#include <algorithm>
#include <chrono>

namespace bench {
namespace {

// TPP's usual fp32 blocks; 32 x 32 x 64 measured fastest of {64,32} x {64,32} x 64 here.
constexpr int kBm = 32, kBn = 32, kBk = 64;

}  // namespace

const char* libxsmm_arch() {
  libxsmm_init();
  return libxsmm_get_target_arch();
}

double libxsmm_blocked_gflops(int m, int n, int k, bool ta, bool tb, const std::vector<float>& a,
                              const std::vector<float>& b, std::vector<float>& c, int reps, int threads) {
  // libxsmm is column-major: row-major C[m,n] = A·B is column-major Cᵀ[n,m] = Bᵀ[n,k]·Aᵀ[k,m], so its
  // first operand is B's blocks [n/kBm][k/kBk][kBk][kBm] and its second A's [m/kBn][k/kBk][kBn][kBk].
  const int rows = n, cols = m;
  if (rows % kBm || cols % kBn || k % kBk) return 0;
  libxsmm_init();
  const int row_blocks = rows / kBm, col_blocks = cols / kBn, k_blocks = k / kBk;
  auto a_at = [&](int i, int p) { return ta ? a[static_cast<size_t>(p) * m + i] : a[static_cast<size_t>(i) * k + p]; };
  auto b_at = [&](int p, int j) { return tb ? b[static_cast<size_t>(j) * k + p] : b[static_cast<size_t>(p) * n + j]; };
  std::vector<float> first(static_cast<size_t>(rows) * k), second(static_cast<size_t>(k) * cols);
  for (int rb = 0; rb < row_blocks; ++rb)
    for (int kb = 0; kb < k_blocks; ++kb)
      for (int p = 0; p < kBk; ++p)
        for (int i = 0; i < kBm; ++i)
          first[((static_cast<size_t>(rb) * k_blocks + kb) * kBk + p) * kBm + i] = b_at(kb * kBk + p, rb * kBm + i);
  for (int cb = 0; cb < col_blocks; ++cb)
    for (int kb = 0; kb < k_blocks; ++kb)
      for (int j = 0; j < kBn; ++j)
        for (int p = 0; p < kBk; ++p)
          second[((static_cast<size_t>(cb) * k_blocks + kb) * kBn + j) * kBk + p] = a_at(cb * kBn + j, kb * kBk + p);
  c.assign(static_cast<size_t>(m) * n, 0.0f);
  const libxsmm_blasint lda = kBm, ldb = kBk, ldc = rows;
  const float alpha = 1, beta = 0;
  const int flags = LIBXSMM_GEMM_FLAGS('N', 'N'), prefetch = LIBXSMM_PREFETCH_NONE;
  // The batch strides are in bytes.
  const libxsmm_smmfunction_reducebatch_strd kernel = libxsmm_smmdispatch_reducebatch_strd(
      kBm, kBn, kBk, static_cast<libxsmm_blasint>(sizeof(float)) * kBm * kBk,
      static_cast<libxsmm_blasint>(sizeof(float)) * kBk * kBn, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  if (kernel == nullptr) return 0;
  auto run = [&] {
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
    for (int cb = 0; cb < col_blocks; ++cb) {
      for (int rb = 0; rb < row_blocks; ++rb) {
        const unsigned long long count = static_cast<unsigned long long>(k_blocks);
        kernel(&first[static_cast<size_t>(rb) * k_blocks * kBm * kBk],
               &second[static_cast<size_t>(cb) * k_blocks * kBk * kBn],
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
