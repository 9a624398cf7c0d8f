// cuBLASLt's FP8 GEMM (trainer/cuda/fp8_gemm.h) against a CPU reference of the quantized product: the
// operands are FP8 codes made on the host (trainer/model/fp8_format.h), so the reference is exact up
// to the summation order: sum_k decode(x)[r,k] * decode(w)[c,k] * x_scale_inv * w_scale_inv (+ bias).
// Tolerances (to be confirmed by the first device run): bf16 output 5e-3 relative L2 (bf16 rounding,
// 2^-9 relative at most, ~2^-10 rms); fp32 output 1e-4 (fp32 sums of up to 512 products; Hopper's FP8
// MMA keeps fewer accumulator bits than fp32 between cuBLASLt's promotions); fast accumulation (the
// forward GEMMs) 2e-3 on top of the bf16 rounding: no promotion at all over k.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "tests/gpu/cuda/fp8_test.h"
#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cuda/fp8_gemm.h"

using namespace bert::cuda;
using namespace bert::cuda::test;
using bert::model::Fp8Format;

namespace {

struct Problem {
  int rows, cols, k;
  Fp8Format xf, wf;
  float x_scale, w_scale;  // the casts' scales (the GEMM gets their inverses)
};

struct Quantized {
  std::vector<uint8_t> xq, wq;
  std::vector<float> ref;  // x·w^T of the dequantized operands, fp64 sums
};

Quantized make(const Problem& p, uint64_t seed) {
  std::mt19937_64 g(seed);
  const std::vector<float> x = random_vec(static_cast<size_t>(p.rows) * p.k, g, -3.f, 3.f);
  const std::vector<float> w = random_vec(static_cast<size_t>(p.cols) * p.k, g, -0.05f, 0.05f);
  Quantized q;
  q.xq = quantize(x, p.x_scale, p.xf);
  q.wq = quantize(w, p.w_scale, p.wf);
  const std::vector<float> xd = dequantize(q.xq, 1.f / p.x_scale, p.xf), wd = dequantize(q.wq, 1.f / p.w_scale, p.wf);
  q.ref.assign(static_cast<size_t>(p.rows) * p.cols, 0.f);
  for (int r = 0; r < p.rows; ++r)
    for (int c = 0; c < p.cols; ++c) {
      double s = 0;
      for (int k = 0; k < p.k; ++k)
        s += static_cast<double>(xd[static_cast<size_t>(r) * p.k + k]) * wd[static_cast<size_t>(c) * p.k + k];
      q.ref[static_cast<size_t>(r) * p.cols + c] = static_cast<float>(s);
    }
  return q;
}

// A problem's codes and dequantisation factors on the device, and the GEMM's arguments over them.
struct OnDevice {
  DeviceBuffer<uint8_t> xq, wq;
  DeviceBuffer<float> xs, ws;
  OnDevice(const Problem& p, const Quantized& q)
      : xq(DeviceBuffer<uint8_t>::from(q.xq)),
        wq(DeviceBuffer<uint8_t>::from(q.wq)),
        xs(scalar(1.f / p.x_scale)),
        ws(scalar(1.f / p.w_scale)) {}
  Fp8GemmArgs args(const Problem& p, void* d) const {
    Fp8GemmArgs a;
    a.x = {xq.get(), p.xf, xs.get(), 0};
    a.w = {wq.get(), p.wf, ws.get(), 0};
    a.rows = p.rows, a.cols = p.cols, a.k = p.k;
    a.d = d;
    return a;
  }
};

void check_bf16_out(const Problem& p, bool fast, bool with_bias, double tol) {
  const Quantized q = make(p, 11);
  std::mt19937_64 g(5);
  const std::vector<float> bias = random_vec(static_cast<size_t>(p.cols), g);
  const OnDevice dev(p, q);
  auto b16 = upload_bf16(bias);
  auto y = poisoned<bf16>(static_cast<size_t>(p.rows) * p.cols);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a = dev.args(p, y.get());
  a.bias = with_bias ? b16.get() : nullptr;
  a.fast_accum = fast;
  gemm.run(a, nullptr);
  sync();
  std::vector<float> ref = q.ref;
  if (with_bias)
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.cols; ++c) ref[static_cast<size_t>(r) * p.cols + c] += bias[static_cast<size_t>(c)];
  CHECK(rel_l2(download_bf16(y), ref) < tol);
}

}  // namespace

TEST_CASE("FP8 GEMM, E4M3 x E4M3 -> bf16 with bias: the forward GEMMs (fast accumulation and not)") {
  require_fp8_device();
  const Problem p{256, 192, 512, Fp8Format::e4m3, Fp8Format::e4m3, 64.f, 4096.f};
  check_bf16_out(p, /*fast=*/false, /*bias=*/true, 5e-3);
  check_bf16_out(p, /*fast=*/true, /*bias=*/true, 7e-3);
  check_bf16_out(p, /*fast=*/true, /*bias=*/false, 7e-3);
}

TEST_CASE("FP8 GEMM, E5M2 gradient x E4M3 weights -> bf16, and beta 1 adds into the output") {
  require_fp8_device();
  const Problem p{128, 96, 256, Fp8Format::e5m2, Fp8Format::e4m3, 1024.f, 2048.f};
  check_bf16_out(p, false, false, 5e-3);
  // beta 1: y = y0 + x·w^T
  const Quantized q = make(p, 3);
  std::mt19937_64 g(8);
  const std::vector<float> y0 = random_vec(static_cast<size_t>(p.rows) * p.cols, g);
  const OnDevice dev(p, q);
  auto y = upload_bf16(y0);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a = dev.args(p, y.get());
  a.beta = 1.f;
  gemm.run(a, nullptr);
  sync();
  std::vector<float> ref = q.ref;
  for (size_t i = 0; i < ref.size(); ++i) ref[i] += y0[i];
  CHECK(rel_l2(download_bf16(y), ref) < 5e-3);
}

TEST_CASE("FP8 GEMM, E4M3 x E5M2 -> fp32 accumulated (the weight gradients), k = tokens") {
  require_fp8_device();
  const Problem p{64, 128, 1024, Fp8Format::e4m3, Fp8Format::e5m2, 32.f, 8192.f};
  const Quantized q = make(p, 21);
  std::mt19937_64 g(2);
  const std::vector<float> d0 = random_vec(static_cast<size_t>(p.rows) * p.cols, g);
  const OnDevice dev(p, q);
  auto d = DeviceBuffer<float>::from(d0);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a = dev.args(p, d.get());
  a.d_type = Fp8OutType::f32;
  a.beta = 1.f;
  gemm.run(a, nullptr);
  sync();
  std::vector<float> ref = q.ref;
  for (size_t i = 0; i < ref.size(); ++i) ref[i] += d0[i];
  CHECK(rel_l2(d.download(), ref) < 1e-4);
}

TEST_CASE("FP8 GEMM, row strides larger than k (a column block of a wider tensor)") {
  require_fp8_device();
  // x is the left 64 columns of a [128, 96] E5M2 tensor; w the rows 32..95 of a [96, 64] one
  const Problem p{128, 64, 64, Fp8Format::e5m2, Fp8Format::e4m3, 512.f, 512.f};
  const Quantized q = make(p, 4);
  std::vector<uint8_t> wide_x(128 * 96, 0x7F), wide_w(96 * 64, 0x7F);  // NaN codes around: must not be read
  for (int r = 0; r < 128; ++r)
    for (int k = 0; k < 64; ++k) wide_x[static_cast<size_t>(r) * 96 + k] = q.xq[static_cast<size_t>(r) * 64 + k];
  for (int c = 0; c < 64; ++c)
    for (int k = 0; k < 64; ++k) wide_w[static_cast<size_t>(c + 32) * 64 + k] = q.wq[static_cast<size_t>(c) * 64 + k];
  auto xq = DeviceBuffer<uint8_t>::from(wide_x), wq = DeviceBuffer<uint8_t>::from(wide_w);
  auto xs = scalar(1.f / p.x_scale), ws = scalar(1.f / p.w_scale);
  auto y = poisoned<bf16>(static_cast<size_t>(p.rows) * p.cols);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a;
  a.x = {xq.get(), p.xf, xs.get(), 96};
  a.w = {wq.get() + 32 * 64, p.wf, ws.get(), 64};
  a.rows = p.rows, a.cols = p.cols, a.k = p.k;
  a.d = y.get();
  gemm.run(a, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(y), q.ref) < 5e-3);
}

TEST_CASE("FP8 GEMM: scale factors inside an array, on or off the 16-byte grid, on a stream or not") {
  require_fp8_device();
  // Measured on an H100 (CUDA 13.0): cuBLASLt refuses every algorithm (NOT_SUPPORTED) when a scale
  // pointer sits 4 or 8 bytes past a 16-byte boundary, and runs at 0, 16 and 256, the stream making no
  // difference. Fp8Gemm refuses the former itself, naming the rule; the latter give the right product.
  const Problem p{128, 96, 128, Fp8Format::e4m3, Fp8Format::e4m3, 64.f, 4096.f};
  const Quantized q = make(p, 17);
  const OnDevice dev(p, q);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  for (const int offset : {0, 1, 2, 4, 64})
    for (const bool on_stream : {false, true}) {
      CAPTURE(offset);
      CAPTURE(on_stream);
      std::vector<float> host(256, 0.f);
      host[static_cast<size_t>(offset)] = 1.f / p.x_scale;
      host[static_cast<size_t>(offset) + 128] = 1.f / p.w_scale;
      auto scales = DeviceBuffer<float>::from(host);
      auto y = poisoned<bf16>(static_cast<size_t>(p.rows) * p.cols);
      LtContext lt;
      Fp8Gemm gemm(lt);
      Fp8GemmArgs a = dev.args(p, y.get());
      a.x.scale_inv = scales.get() + offset;
      a.w.scale_inv = scales.get() + 128 + offset;
      if (offset % 4) {
        CHECK_THROWS_WITH_AS(gemm.run(a, on_stream ? stream : nullptr), doctest::Contains("16-byte aligned"),
                             CudaError);
        continue;
      }
      gemm.run(a, on_stream ? stream : nullptr);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(rel_l2(download_bf16(y), q.ref) < 5e-3);
    }
  cudaStreamDestroy(stream);
}

TEST_CASE("FP8 GEMM with operands at 16-byte alignment, scales inside an array, on a stream") {
  require_fp8_device();
  // x, w, d and the bias 16 bytes past a 256-byte boundary; the dequantisation factors 16 bytes apart in
  // one array (the scaling state's layout): the heuristic must pick an algorithm for those alignments
  const Problem p{128, 96, 128, Fp8Format::e4m3, Fp8Format::e4m3, 64.f, 4096.f};
  const Quantized q = make(p, 13);
  std::mt19937_64 g(6);
  const std::vector<float> bias = random_vec(static_cast<size_t>(p.cols), g);
  std::vector<uint8_t> xs(q.xq.size() + 16), ws(q.wq.size() + 16);
  std::copy(q.xq.begin(), q.xq.end(), xs.begin() + 16);
  std::copy(q.wq.begin(), q.wq.end(), ws.begin() + 16);
  auto xq = DeviceBuffer<uint8_t>::from(xs), wq = DeviceBuffer<uint8_t>::from(ws);
  std::vector<float> factors(12, 0.f);
  factors[4] = 1.f / p.x_scale;
  factors[8] = 1.f / p.w_scale;
  auto scales = DeviceBuffer<float>::from(factors);
  std::vector<float> bias_at(p.cols + 8, 0.f);
  std::copy(bias.begin(), bias.end(), bias_at.begin() + 8);
  auto b16 = upload_bf16(bias_at);
  auto y = poisoned<bf16>(static_cast<size_t>(p.rows) * p.cols + 8);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a;
  a.x = {xq.get() + 16, p.xf, scales.get() + 4, 0};
  a.w = {wq.get() + 16, p.wf, scales.get() + 8, 0};
  a.rows = p.rows, a.cols = p.cols, a.k = p.k;
  a.d = y.get() + 8;
  a.bias = b16.get() + 8;
  a.fast_accum = true;
  gemm.run(a, stream);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  cudaStreamDestroy(stream);
  const std::vector<float> all = download_bf16(y);
  std::vector<float> ref = q.ref;
  for (int r = 0; r < p.rows; ++r)
    for (int c = 0; c < p.cols; ++c) ref[static_cast<size_t>(r) * p.cols + c] += bias[static_cast<size_t>(c)];
  CHECK(rel_l2(std::vector<float>(all.begin() + 8, all.end()), ref) < 7e-3);
}

TEST_CASE("FP8 GEMM with an FP8 output: D scale applied, amax of the unscaled result") {
  require_fp8_device();
  const Problem p{128, 128, 128, Fp8Format::e4m3, Fp8Format::e4m3, 64.f, 4096.f};
  const Quantized q = make(p, 9);
  const OnDevice dev(p, q);
  float ref_amax = 0;
  for (float v : q.ref) ref_amax = std::max(ref_amax, std::fabs(v));
  const float d_scale = 400.f / ref_amax;
  auto ds = scalar(d_scale), amax = scalar(0.f);
  DeviceBuffer<uint8_t> d(q.ref.size());
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a = dev.args(p, d.get());
  a.d_type = Fp8OutType::e4m3;
  a.d_scale = ds.get();
  a.amax_d = amax.get();
  gemm.run(a, nullptr);
  sync();
  CHECK(amax.download()[0] == doctest::Approx(ref_amax).epsilon(1e-4));
  const std::vector<float> got = dequantize(d.download(), 1.f / d_scale, Fp8Format::e4m3);
  CHECK(rel_l2(got, q.ref) < 0.05);  // E4M3 output: 3 mantissa bits, at most 2^-4 relative per element
}

TEST_CASE("FP8 GEMM: shapes off the 16 grid and E5M2 x E5M2 are refused before cuBLASLt") {
  require_fp8_device();
  DeviceBuffer<uint8_t> x(64 * 64), w(64 * 64);
  DeviceBuffer<bf16> y(64 * 64);
  auto one = scalar(1.f);
  LtContext lt;
  Fp8Gemm gemm(lt);
  Fp8GemmArgs a;
  a.x = {x.get(), Fp8Format::e4m3, one.get(), 0};
  a.w = {w.get(), Fp8Format::e4m3, one.get(), 0};
  a.rows = 64, a.cols = 64, a.k = 40;
  a.d = y.get();
  CHECK_THROWS_AS(gemm.run(a, nullptr), CudaError);
  a.k = 64;
  a.x.format = a.w.format = Fp8Format::e5m2;
  CHECK_THROWS_AS(gemm.run(a, nullptr), CudaError);
}
