#include "trainer/cpu/gemm.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/cpu/omp_errors.h"

namespace bert::cpu {

namespace {

std::atomic<uint64_t> g_flops{0}, g_nanoseconds{0};
std::atomic<bool> g_profile{false};
std::mutex g_profile_mutex;
std::map<std::tuple<bool, bool, int, int, int>, GemmShapeTime> g_shapes;

// Around every product on a thread (the leaf of gemm() and gemm_on_thread()): its flops, its time,
// and its shape when profiling.
class Counted {
 public:
  Counted(bool ta, bool tb, int m, int n, int k) : ta_(ta), tb_(tb), m_(m), n_(n), k_(k) {
    g_flops.fetch_add(2ull * static_cast<uint64_t>(m) * static_cast<uint64_t>(n) * static_cast<uint64_t>(k),
                      std::memory_order_relaxed);
  }
  ~Counted() {
    const auto ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count());
    g_nanoseconds.fetch_add(ns, std::memory_order_relaxed);
    if (!g_profile.load(std::memory_order_relaxed)) return;
    const std::lock_guard<std::mutex> lock(g_profile_mutex);
    GemmShapeTime& s = g_shapes[{ta_, tb_, m_, n_, k_}];
    s.ta = ta_, s.tb = tb_, s.m = m_, s.n = n_, s.k = k_;
    s.calls += 1;
    s.seconds += static_cast<double>(ns) * 1e-9;
  }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  bool ta_, tb_;
  int m_, n_, k_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// The BLAS (blas.h: OpenBLAS, MKL or oneDNN's sgemm) and oneDNN's bf16 matmul run single-threaded inside
// each OpenMP thread, on a block of C's rows: one thread pool (OpenMP) instead of two that spin against
// each other (OpenMP's and OpenBLAS's own), which made a 2-core run several times slower. bf16 too:
// oneDNN threading each product itself ran base 128 / 512 steps 3-6 % slower at 2 threads (Large
// within noise). A small product runs whole on the calling thread (oneDNN, outside a parallel region,
// threads it over OpenMP's pool itself). `block(rows, a_rows, c_rows)` computes a block of C's rows:
// op(A)'s and C's first row of it (A transposed: its columns).
template <class Block>
void split_rows(bool ta, int m, int n, int k, Operand a, int lda, Output c, int ldc, const Block& block) {
  const auto rows_at = [&](int r0, int rows) {
    block(rows, a + (ta ? static_cast<size_t>(r0) : static_cast<size_t>(r0) * lda), c + static_cast<size_t>(r0) * ldc);
  };
  const int threads = omp_get_max_threads();
  if (threads == 1 || m < 64 || static_cast<long>(m) * n * k < (1L << 18)) return rows_at(0, m);
  const int blocks = std::min(threads, m / 32);
  const int per = (m + blocks - 1) / blocks;
  OmpErrors errors;
#pragma omp parallel for schedule(static) num_threads(blocks)
  for (int i = 0; i < blocks; ++i) {
    const int r0 = i * per, rows = std::min(per, m - r0);
    if (rows > 0) errors.run([&] { rows_at(r0, rows); });
  }
  errors.rethrow();
}

bool runs_bf16(Operand a, Operand b, Output c, MatmulPrecision p) {
  return p == MatmulPrecision::bf16 || a.bf16 || b.bf16 || c.bf16;
}

}  // namespace

uint64_t gemm_flops() { return g_flops.load(std::memory_order_relaxed); }
double gemm_thread_seconds() { return static_cast<double>(g_nanoseconds.load(std::memory_order_relaxed)) * 1e-9; }
void set_gemm_shape_profile(bool on) { g_profile = on; }
std::vector<GemmShapeTime> gemm_shape_profile() {
  const std::lock_guard<std::mutex> lock(g_profile_mutex);
  std::vector<GemmShapeTime> out;
  for (const auto& [key, shape] : g_shapes) out.push_back(shape);
  return out;
}
void reset_gemm_counters() {
  g_flops.store(0, std::memory_order_relaxed);
  g_nanoseconds.store(0, std::memory_order_relaxed);
  const std::lock_guard<std::mutex> lock(g_profile_mutex);
  g_shapes.clear();
}

// Every product, whole or a row block, is counted around its call on a thread (Counted): here in
// gemm_on_thread, and in gemm_bias's bf16 blocks.
void gemm(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb, float beta,
          Output c, int ldc, MatmulPrecision precision) {
  if (m == 0 || n == 0) return;
  split_rows(ta, m, n, k, a, lda, c, ldc, [&](int rows, Operand ai, Output ci) {
    gemm_on_thread(ta, tb, rows, n, k, alpha, ai, lda, b, ldb, beta, ci, ldc, precision);
  });
}

void gemm_on_thread(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb,
                    float beta, Output c, int ldc, MatmulPrecision precision) {
  if (m == 0 || n == 0) return;
  const Counted counted(ta, tb, m, n, k);
  if (runs_bf16(a, b, c, precision))
    gemm_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    blas_sgemm(ta, tb, m, n, k, alpha, a.f32, lda, b.f32, ldb, beta, c.f32, ldc);
}

void gemm_bias(bool ta, bool tb, int m, int n, int k, Operand a, int lda, const float* b, int ldb, const float* bias,
               Output c, int ldc, MatmulPrecision precision) {
  if (m == 0 || n == 0) return;
  if (runs_bf16(a, b, c, precision))
    return split_rows(ta, m, n, k, a, lda, c, ldc, [&](int rows, Operand ai, Output ci) {
      const Counted counted(ta, tb, rows, n, k);
      gemm_bf16(ta, tb, rows, n, k, 1.0f, ai, lda, b, ldb, 0.0f, ci, ldc, bias);
    });
#pragma omp parallel for schedule(static)
  for (int r = 0; r < m; ++r) std::copy(bias, bias + n, c.f32 + static_cast<size_t>(r) * ldc);
  gemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 1.0f, c, ldc, precision);
}

void gemm_ref(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
              int ldb, float beta, float* c, int ldc) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) {
        const float av = ta ? a[p * lda + i] : a[i * lda + p];
        const float bv = tb ? b[j * ldb + p] : b[p * ldb + j];
        acc += static_cast<double>(av) * bv;
      }
      c[i * ldc + j] = static_cast<float>(alpha * acc + (beta == 0.0f ? 0.0 : beta * c[i * ldc + j]));
    }
}

void set_blas_threads(int /*n*/) {
  openblas_set_num_threads(1);
  blas_library();  // the choice (and a bad BERT_CPU_BLAS) at startup, not at the first product
}

}  // namespace bert::cpu
