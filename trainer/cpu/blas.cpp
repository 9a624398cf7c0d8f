#include "trainer/cpu/blas.h"

#include <cblas.h>
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace bert::cpu {

namespace {

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const float*, int,
                         const float*, int, float, float*, int);
using SgemvFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, int, int, float, const float*, int, const float*, int, float,
                         float*, int);

struct Blas {
  BlasLibrary lib = BlasLibrary::openblas;
  SgemmFn sgemm = nullptr;
  SgemvFn sgemv = nullptr;
};

// MKL through its single dynamic library, RTLD_LOCAL so its cblas_* never interpose OpenBLAS's. Sequential:
// gemm() already splits rows over our OpenMP threads. False, with the reason, when it does not load.
bool load_mkl(Blas& out, std::string& why) {
  void* h = dlopen("libmkl_rt.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    why = dlerror();
    return false;
  }
  using SetLayerFn = int (*)(int);
  auto set_threading = reinterpret_cast<SetLayerFn>(dlsym(h, "MKL_Set_Threading_Layer"));
  auto set_interface = reinterpret_cast<SetLayerFn>(dlsym(h, "MKL_Set_Interface_Layer"));
  out.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
  out.sgemv = reinterpret_cast<SgemvFn>(dlsym(h, "cblas_sgemv"));
  if (!set_threading || !set_interface || !out.sgemm || !out.sgemv) {
    why = "libmkl_rt.so lacks MKL_Set_Threading_Layer, MKL_Set_Interface_Layer, cblas_sgemm or cblas_sgemv";
    return false;
  }
  constexpr int kLp64 = 0, kSequential = 1;  // mkl_service.h's MKL_INTERFACE_LP64, MKL_THREADING_SEQUENTIAL
  set_interface(kLp64);
  set_threading(kSequential);
  out.lib = BlasLibrary::mkl;
  return true;
}

// oneDNN's row-major sgemm (its JIT AVX-512 kernels), called inside gemm()'s own OpenMP loop, where it runs
// on the calling thread.
void onednn_sgemm(CBLAS_ORDER, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a,
                  int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  const dnnl_status_t st = dnnl_sgemm(ta == CblasTrans ? 'T' : 'N', tb == CblasTrans ? 'T' : 'N', m, n, k, alpha, a,
                                      lda, b, ldb, beta, c, ldc);
  if (st != dnnl_success) throw std::runtime_error("dnnl_sgemm failed with status " + std::to_string(st));
}

// y = alpha·Aᵀ·x + beta·y as the 1-row product xᵀ·A.
void onednn_sgemv(CBLAS_ORDER, CBLAS_TRANSPOSE, int m, int n, float alpha, const float* a, int lda, const float* x,
                  int, float beta, float* y, int) {
  onednn_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, n, m, alpha, x, m, a, lda, beta, y, n);
}

Blas choose() {
  const char* env = std::getenv("BERT_CPU_BLAS");
  const std::string want = env && *env ? env : "auto";
  Blas b;
  b.sgemm = &cblas_sgemm;
  b.sgemv = &cblas_sgemv;
  if (want == "openblas") return b;
  if (want != "auto" && want != "mkl" && want != "onednn")
    throw UserError("environment variable BERT_CPU_BLAS='" + want + "': expected auto, mkl, onednn or openblas");
  // auto: MKL on Intel CPUs (elsewhere its generic paths are slow). On other CPUs with AVX-512, oneDNN:
  // Debian's OpenBLAS 0.3.21 runs its AVX2 (Haswell) kernels there, ~0.5 of the core's AVX-512 FMA peak
  // on an AMD EPYC Zen 5; oneDNN's sgemm ~0.92 (cpu_step's gemm_peak_gflops). OpenBLAS on the rest.
  // oneDNN's JIT sgemm (before 3.11; Debian 12 has 2.6) points rsp into the heap while it runs, so a
  // signal handled on that thread corrupts the heap (oneDNN issue #4845): trainer/stop_signal.h keeps
  // the trainer's stop signals off every computing thread.
  if (want == "onednn" || (want == "auto" && !__builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f"))) {
    b.lib = BlasLibrary::onednn;
    b.sgemm = &onednn_sgemm;
    b.sgemv = &onednn_sgemv;
    return b;
  }
  if (want == "auto" && !__builtin_cpu_is("intel")) return b;
  Blas mkl;
  std::string why;
  if (load_mkl(mkl, why)) return mkl;
  if (want == "mkl")
    throw UserError("environment variable BERT_CPU_BLAS='mkl': cannot load Intel MKL (" + why +
                    "); install libmkl-rt (Debian non-free; scripts/setup does) or set BERT_CPU_BLAS=openblas");
  return b;
}

const Blas& blas() {
  static const Blas b = choose();
  return b;
}

}  // namespace

BlasLibrary blas_library() { return blas().lib; }

const char* blas_library_name(BlasLibrary lib) {
  switch (lib) {
    case BlasLibrary::mkl: return "MKL";
    case BlasLibrary::onednn: return "oneDNN";
    case BlasLibrary::openblas: break;
  }
  return "OpenBLAS";
}

void blas_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc) {
  blas().sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
               b, ldb, beta, c, ldc);
}

void blas_sgemv_t(int m, int n, float alpha, const float* a, int lda, const float* x, float beta, float* y) {
  blas().sgemv(CblasRowMajor, CblasTrans, m, n, alpha, a, lda, x, 1, beta, y, 1);
}

}  // namespace bert::cpu
