// Error checking for CUDA runtime and cuBLASLt calls. Every call's status is checked; a failure
// throws CudaError naming the call, the file and line, so the trainer can report it once and exit.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace bert::cuda {

struct CudaError : std::runtime_error { using std::runtime_error::runtime_error; };

[[noreturn]] void throw_cuda_error(const char* what, const char* detail, const char* file, int line);

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(what, cudaGetErrorString(e), file, line);
}
inline void check_cublas(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) throw_cuda_error(what, cublasLtGetStatusString(s), file, line);
}

}  // namespace bert::cuda

#define BERT_CUDA_CHECK(call) ::bert::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define BERT_CUBLAS_CHECK(call) ::bert::cuda::check_cublas((call), #call, __FILE__, __LINE__)
// After a kernel launch: catches bad launch configurations at once (execution errors surface at
// the next synchronising call, which is checked too).
#define BERT_CUDA_CHECK_LAUNCH() ::bert::cuda::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
