#pragma once
// libxsmm, the GEMM library under Intel's TPP (the Intel MLPerf BERT submission's kernels): fp32
// batch-reduce kernels over operands already in its blocked layout, as TPP keeps them, so no
// packing or transposes are timed (a generous measure). C[m,n] = A[m,k]·B[k,n]; best of `reps`.
// Returns 0 when m, n or k is not a multiple of the blocks or libxsmm has no kernel for this CPU.
namespace bench {
double libxsmm_blocked_gflops(int m, int n, int k, int reps, int threads);
const char* libxsmm_arch();
}  // namespace bench
