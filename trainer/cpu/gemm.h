// Row-major single-precision GEMM: C = alpha·op(A)·op(B) + beta·C, op = transpose when ta/tb.
// gemm() goes through the BLAS blas.h chose (OpenBLAS or MKL); gemm_ref() is the plain-loop reference
// kept for tests.
#pragma once
#include <cstdint>
#include <vector>

#include "trainer/cpu/operand.h"

namespace bert::cpu {

// The math of gemm(): fp32 (blas.h) or bf16 operands with fp32 accumulation (gemm_bf16.h, oneDNN):
// the model's (BertCpu's, from run.precision), passed to every product it computes.
enum class MatmulPrecision { fp32, bf16 };

// A, B, C: fp32 pointers, or (operand.h) bf16 ones in bf16 runs: a product runs in bf16 (gemm_bf16.h)
// when `precision` is bf16 or any operand or result is bf16 memory.
void gemm(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb, float beta,
          Output c, int ldc, MatmulPrecision precision);
// The same product on the calling thread, no row split: for callers already inside their own OpenMP
// loop (attention's per-(sequence, head) products).
void gemm_on_thread(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb,
                    float beta, Output c, int ldc, MatmulPrecision precision);
// C = op(A)·op(B) + bias (bias[n] added to every row): bf16 adds it in the product's epilogue,
// fp32 fills C's rows with it and adds the product (beta 1). Counted as gemm().
void gemm_bias(bool ta, bool tb, int m, int n, int k, Operand a, int lda, const float* b, int ldb, const float* bias,
               Output c, int ldc, MatmulPrecision precision);
void gemm_ref(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
              int ldb, float beta, float* c, int ldc);

// What went through gemm() and gemm_on_thread() since process start or the last reset, summed over
// all threads, counted around each product on a thread (each row block of a split gemm()): its
// floating-point operations (2·m·n·k, either precision) and its wall time (thread-seconds: with
// several threads in products at once, more than the wall time passed). For benches (bench/cpu_step):
// a relaxed atomic add and two clock reads per product.
uint64_t gemm_flops();
double gemm_thread_seconds();
// Per product shape on a thread (a split gemm()'s row blocks are their own shapes), when profiling is
// on (off by default: a lock per product).
struct GemmShapeTime {
  bool ta = false, tb = false;
  int m = 0, n = 0, k = 0;
  uint64_t calls = 0;
  double seconds = 0;
};
void set_gemm_shape_profile(bool on);
std::vector<GemmShapeTime> gemm_shape_profile();
void reset_gemm_counters();

// gemm() splits C's rows over the OpenMP threads and runs the BLAS single-threaded in each; this pins
// OpenBLAS's own pool to one thread and makes blas.h's choice (call once at startup; UserError on a bad
// BERT_CPU_BLAS).
void set_blas_threads(int n);

}  // namespace bert::cpu
