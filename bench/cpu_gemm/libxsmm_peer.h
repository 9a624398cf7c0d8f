#pragma once
// libxsmm, the GEMM library under Intel's TPP (the Intel MLPerf BERT submission's kernels): fp32
// batch-reduce kernels over operands already in its blocked layout, as TPP keeps them, so no
// packing or transposes are timed (a generous measure). C[m,n] = op(A)·op(B) with cpu_gemm's
// operands (ta: A stored [k,m]; tb: B stored [n,k]), blocked once, untimed; C row-major [m,n], for
// the caller to check. Best of `reps`. Returns 0 when m, n or k is not a multiple of the blocks or
// libxsmm has no kernel for this CPU.
#include <vector>

namespace bench {
double libxsmm_blocked_gflops(int m, int n, int k, bool ta, bool tb, const std::vector<float>& a,
                              const std::vector<float>& b, std::vector<float>& c, int reps, int threads);
const char* libxsmm_arch();
}  // namespace bench
