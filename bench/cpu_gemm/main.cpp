// cpu_gemm: GFLOP/s of the GEMM libraries the CPU backend can use, at BERT's shapes, on this CPU,
// against the core's own FMA peak measured in the same run: OpenBLAS sgemm (fp32), Intel MKL sgemm
// through the trainer's own gemm() (what fp32 uses on Intel CPUs: trainer/cpu/blas.h), oneDNN matmul
// in fp32 (plain weights, and weights reordered once into its own layout, as a step could keep them),
// in fp32 with fpmath_mode bf16 ("bf32": bf16 math on fp32 memory, AMX when present), with bf16
// operands, and libxsmm's fp32 kernels on pre-blocked operands (Intel's TPP).
// OpenBLAS's sbgemm is not in the comparison: Debian's libopenblas0 0.3.21 is built without BFLOAT16
// (cblas.h declares cblas_sbgemm, the library exports no such symbol). Prints one JSON object; exits 1
// when a library's product does not match OpenBLAS's.
//   cpu_gemm [--tokens 1024] [--hidden 768] [--reps 5] [--threads 1]
#include <cblas.h>
#include <omp.h>

#include "fma_peak.h"
#include "libxsmm_peer.h"
#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Each library's C against OpenBLAS's on the same operands: max |difference| / max |OpenBLAS's C|.
// A figure whose product does not match is not a figure (gflops null, the error kept).
double max_rel_diff(const std::vector<float>& ref, const std::vector<float>& c) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::fabs(ref[i] - c[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// fp32 math differs from OpenBLAS only in summation order; bf16 operands round each input to 8 bits.
constexpr double kFp32Tolerance = 1e-5, kBf16Tolerance = 2e-2;

void checked(nlohmann::json& result, const char* key, double gflops, double rel_diff, double tolerance) {
  result["max_rel_diff_vs_openblas"] = rel_diff;
  if (rel_diff <= tolerance) {
    result[key] = gflops;
  } else {
    result[key] = nullptr;
    result["error"] = "result differs from OpenBLAS's beyond " + std::to_string(tolerance);
  }
}

double best_seconds(int reps, const std::function<void()>& f) {
  f();  // warm-up (oneDNN JIT, OpenBLAS buffers)
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

uint16_t to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

// C[m,n] = op(A)·op(B); ta/tb: A stored [k,m] / B stored [n,k] (the backward's forms: a dense layer's
// data gradient dy·Wᵀ is NT, its weight gradient xᵀ·dy is TN).
struct Shape {
  const char* what;
  int m, n, k;
  bool ta = false, tb = false;
};

nlohmann::json run_shape(const Shape& s, int reps, int threads, dnnl::engine& eng, dnnl::stream& strm) {
  std::mt19937 g(1);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> a(static_cast<size_t>(s.m) * s.k), b(static_cast<size_t>(s.k) * s.n), c(static_cast<size_t>(s.m) * s.n);
  for (auto& x : a) x = d(g);
  for (auto& x : b) x = d(g);
  std::vector<uint16_t> a16(a.size()), b16(b.size());
  std::transform(a.begin(), a.end(), a16.begin(), to_bf16);
  std::transform(b.begin(), b.end(), b16.begin(), to_bf16);
  const double flop = 2.0 * s.m * s.n * s.k;
  nlohmann::json out = {{"gemm", s.what}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"ta", s.ta}, {"tb", s.tb}};
  out["openblas_sgemm_gflops"] = flop / 1e9 / best_seconds(reps, [&] {
    cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k,
                1.0f, a.data(), s.ta ? s.m : s.k, b.data(), s.tb ? s.k : s.n, 0.0f, c.data(), s.n);
  });
  const std::vector<float> reference = c;
  nlohmann::json mkl = nlohmann::json::object();
  if (bert::cpu::blas_library() == bert::cpu::BlasLibrary::mkl) {
    const double t = best_seconds(reps, [&] {
      bert::cpu::gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), s.ta ? s.m : s.k, b.data(), s.tb ? s.k : s.n, 0.0f,
                      c.data(), s.n, bert::cpu::MatmulPrecision::fp32);
    });
    checked(mkl, "gflops", flop / 1e9 / t, max_rel_diff(reference, c), kFp32Tolerance);
  } else {
    mkl["gflops"] = nullptr;
    mkl["note"] = "Intel MKL not loaded (libmkl-rt missing, or BERT_CPU_BLAS=openblas)";
  }
  out["mkl_sgemm_trainer_gemm"] = mkl;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  // reorder_weights: B reordered once into the layout oneDNN picks (as a step could keep its weights),
  // the reorder timed apart and only the matmul in gflops.
  auto onednn = [&](dt in, dnnl::fpmath_mode mode, bool reorder_weights = false) {
    dnnl::memory::desc ad({s.m, s.k}, in, s.ta ? tag::ba : tag::ab), bd({s.k, s.n}, in, s.tb ? tag::ba : tag::ab),
        any({s.k, s.n}, in, tag::any), cd({s.m, s.n}, dt::f32, tag::ab);
    dnnl::primitive_attr attr;
    attr.set_fpmath_mode(mode);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, reorder_weights ? any : bd, cd), attr, eng);
    dnnl::matmul mm(pd);
    void* ap = in == dt::f32 ? static_cast<void*>(a.data()) : static_cast<void*>(a16.data());
    void* bp = in == dt::f32 ? static_cast<void*>(b.data()) : static_cast<void*>(b16.data());
    dnnl::memory am(ad, eng, ap), bm(bd, eng, bp), cm(cd, eng, c.data());
    nlohmann::json result = nlohmann::json::object();
    dnnl::memory weights = bm;
    if (reorder_weights) {
      weights = dnnl::memory(pd.weights_desc(), eng);
      dnnl::reorder pack(bm, weights);
      result["reorder_ms"] = 1e3 * best_seconds(reps, [&] {
        pack.execute(strm, bm, weights);
        strm.wait();
      });
    }
    const double t = best_seconds(reps, [&] {
      mm.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, cm}});
      strm.wait();
    });
    checked(result, "gflops", flop / 1e9 / t, max_rel_diff(reference, c),
            in == dt::f32 && mode == dnnl::fpmath_mode::strict ? kFp32Tolerance : kBf16Tolerance);
    result["impl"] = pd.impl_info_str();
    return result;
  };
  // A variant oneDNN cannot make on this CPU (bf16 matmul needs avx512_bf16 or AMX-BF16; Debian's oneDNN
  // 2.7 has no bf16 matmul for AVX2-only CPUs) is skipped with the reason, not a failure.
  auto variant = [&](const char* name, dt in, dnnl::fpmath_mode mode, bool reorder_weights = false) {
    try {
      out[name] = onednn(in, mode, reorder_weights);
    } catch (const dnnl::error& e) {
      std::string isa;
      bert::cpu::cpu_has_bf16_matmul(&isa);
      const std::string why = std::string("oneDNN cannot make this matmul on this CPU (") + isa + "): " + e.what();
      out[name] = {{"gflops", nullptr}, {"skipped", why}};
      std::cerr << "cpu_gemm: " << s.what << ": " << name << " skipped: " << why << "\n";
    }
  };
  variant("onednn_f32", dt::f32, dnnl::fpmath_mode::strict);
  // Not for the weight-gradient form (TN), whose operands are both fresh activations.
  if (!s.ta) variant("onednn_f32_packed_weights", dt::f32, dnnl::fpmath_mode::strict, true);
  nlohmann::json xsmm = nlohmann::json::object();
  const double xsmm_gflops = bench::libxsmm_blocked_gflops(s.m, s.n, s.k, s.ta, s.tb, a, b, c, reps, threads);
  if (xsmm_gflops > 0)
    checked(xsmm, "gflops", xsmm_gflops, max_rel_diff(reference, c), kFp32Tolerance);
  else
    xsmm["gflops"] = nullptr;
  out["libxsmm_f32_preblocked"] = xsmm;
  variant("onednn_f32_fpmath_bf16", dt::f32, dnnl::fpmath_mode::bf16);
  variant("onednn_bf16", dt::bf16, dnnl::fpmath_mode::strict);
  if (!s.ta) variant("onednn_bf16_packed_weights", dt::bf16, dnnl::fpmath_mode::strict, true);
  return out;
}

// Per library: the lowest and highest GFLOP/s over the shapes, and the highest as a share of the
// core's FMA peak.
nlohmann::json summarize(const nlohmann::json& shapes, double peak) {
  const std::pair<const char*, const char*> figures[] = {
      {"openblas_sgemm", "/openblas_sgemm_gflops"},
      {"mkl_sgemm_trainer_gemm", "/mkl_sgemm_trainer_gemm/gflops"},
      {"onednn_f32", "/onednn_f32/gflops"},
      {"onednn_f32_packed_weights", "/onednn_f32_packed_weights/gflops"},
      {"libxsmm_f32_preblocked", "/libxsmm_f32_preblocked/gflops"},
      {"onednn_f32_fpmath_bf16", "/onednn_f32_fpmath_bf16/gflops"},
      {"onednn_bf16", "/onednn_bf16/gflops"},
      {"onednn_bf16_packed_weights", "/onednn_bf16_packed_weights/gflops"}};
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, pointer] : figures) {
    double lo = 1e30, hi = 0;
    for (const auto& shape : shapes) {
      const nlohmann::json::json_pointer ptr(pointer);
      if (!shape.contains(ptr) || !shape.at(ptr).is_number()) continue;
      lo = std::min(lo, shape.at(ptr).get<double>());
      hi = std::max(hi, shape.at(ptr).get<double>());
    }
    if (hi == 0) continue;
    out[name] = {{"min_gflops", lo}, {"max_gflops", hi}, {"max_share_of_fma_peak", peak > 0 ? hi / peak : 0}};
  }
  return out;
}

}  // namespace

namespace {
int run(int tokens, int hidden, int reps, int threads);
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GEMM libraries at BERT shapes"};
  int tokens = 1024, hidden = 768, reps = 5, threads = 1;
  app.add_option("--tokens", tokens, "rows (tokens per step)")->check(CLI::Range(1, 1 << 16));
  app.add_option("--hidden", hidden, "hidden size (intermediate = 4x)")->check(CLI::Range(16, 8192));
  app.add_option("--reps", reps, "timed repetitions (best is kept)")->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "threads (OpenMP and OpenBLAS)")->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);
  try {
    return run(tokens, hidden, reps, threads);
  } catch (const std::exception& e) {  // a library refusing the machine: one line, never an abort
    std::cerr << "cpu_gemm: " << e.what() << "\n";
    return 2;
  }
}

namespace {

int run(int tokens, int hidden, int reps, int threads) {
  omp_set_num_threads(threads);
  setenv("BERT_CPU_BLAS", "mkl", 0);  // the trainer's gemm() on MKL unless the caller chose otherwise
  try {
    bert::cpu::blas_library();
  } catch (const std::exception& e) {  // no MKL here: its figures are null, the rest still run
    std::cerr << "cpu_gemm: " << e.what() << "; MKL's figures are null\n";
    setenv("BERT_CPU_BLAS", "openblas", 1);
  }
  openblas_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  nlohmann::json j = {{"bench", "cpu_gemm"}, {"threads", threads}, {"tokens", tokens}, {"hidden", hidden},
                      {"openblas", openblas_get_config()},
                      {"mkl_loaded", bert::cpu::blas_library() == bert::cpu::BlasLibrary::mkl},
                      {"openblas_core", openblas_get_corename()},
                      {"shapes", nlohmann::json::array()}};
  const int h = hidden, i4 = 4 * hidden;
  const Shape shapes[] = {
      {"qkv/attention-out", tokens, h, h},          {"intermediate", tokens, i4, h},
      {"output", tokens, h, i4},                    {"qkv/attention-out dx", tokens, h, h, false, true},
      {"intermediate dx", tokens, h, i4, false, true}, {"output dx", tokens, i4, h, false, true},
      {"qkv/attention-out dW", h, h, tokens, true}, {"intermediate dW", h, i4, tokens, true},
      {"output dW", i4, h, tokens, true}};
  const double peak = bench::fma_peak_gflops(threads);
  j["fma_peak_gflops"] = peak;
  j["fma_peak_isa"] = bench::fma_peak_isa();
  j["libxsmm_arch"] = bench::libxsmm_arch();
  for (const Shape& s : shapes) j["shapes"].push_back(run_shape(s, reps, threads, eng, strm));
  j["summary"] = summarize(j["shapes"], peak);
  std::cout << j.dump(1) << "\n";
  const auto mismatch = [](const nlohmann::json& shape) {
    return std::any_of(shape.begin(), shape.end(), [](const nlohmann::json& r) { return r.contains("error"); });
  };
  if (std::any_of(j["shapes"].begin(), j["shapes"].end(), mismatch)) {
    std::cerr << "cpu_gemm: a library's product does not match OpenBLAS's (\"error\" in the output)\n";
    return 1;
  }
  return 0;
}

}  // namespace
