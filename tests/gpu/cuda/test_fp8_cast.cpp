// The FP8 casts (trainer/cuda/fp8_cast.h) and the scaling update (fp8_scaling.h) against their CPU
// references: trainer/model/fp8_format.h's fp8_encode and fp8_scaling.h's fp8_update, the same maths
// on the host.
//   identity casts: codes equal bit for bit (the device conversion is cvt.rn.satfinite, which
//     fp8_encode reproduces), transposed copy == transpose, amax exact, column sums to 1e-5;
//   GELU / GELU' casts: the device tanhf may differ from the host's by an ulp, so a code may land one
//     step away where the value sits on a rounding boundary: at most 1 code apart, and amax to 1e-5.
//   scaling update: bit for bit (one function, host and device).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tests/gpu/cuda/fp8_test.h"
#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cuda/fp8_cast.h"
#include "trainer/cuda/fp8_scaling.h"
#include "trainer/model/fp8_scaling.h"

using namespace bert::cuda;
using namespace bert::cuda::test;
using bert::model::Fp8Format;

namespace {

struct CastCase {
  int rows, cols;
  Fp8CastOp op;
  Fp8Format format;
  bool f32_input, colsum;
};

void run_case(const CastCase& k) {
  CAPTURE(k.rows);
  CAPTURE(k.cols);
  CAPTURE(static_cast<int>(k.op));
  std::mt19937_64 g(static_cast<uint64_t>(k.rows * 131 + k.cols));
  const size_t n = static_cast<size_t>(k.rows) * k.cols;
  const std::vector<float> x = random_vec(n, g, -4.f, 4.f), aux = random_vec(n, g, -3.f, 3.f);
  const float scale = k.format == Fp8Format::e4m3 ? 100.f : 5000.f;
  std::vector<float> v = x;  // f(x) on the host: the CPU trainer's GELU reference
  if (k.op == Fp8CastOp::gelu) bert::cpu::gelu_forward_ref(x.data(), v.data(), n);
  if (k.op == Fp8CastOp::dgelu) bert::cpu::gelu_backward_ref(aux.data(), x.data(), v.data(), n);
  const std::vector<uint8_t> ref = quantize(v, scale, k.format);
  float ref_amax = 0;
  for (float y : v) ref_amax = std::max(ref_amax, std::fabs(y));

  auto xb = upload_bf16(x);
  auto xf = DeviceBuffer<float>::from(x);
  auto ab = upload_bf16(aux);
  auto sc = scalar(scale), amax = scalar(0.5f);  // a smaller amax already there: raised, never lowered
  DeviceBuffer<uint8_t> out(n), out_t(n);
  const int tiles = fp8_colsum_tiles(k.rows);
  DeviceBuffer<float> partial(static_cast<size_t>(tiles) * k.cols);
  std::vector<float> db0(static_cast<size_t>(k.cols), 1.f);
  auto db = DeviceBuffer<float>::from(db0);
  Fp8CastArgs a;
  if (k.f32_input) a.x_f32 = xf.get(); else a.x_bf16 = xb.get();
  a.rows = k.rows, a.cols = k.cols, a.op = k.op, a.aux = ab.get(), a.format = k.format;
  a.scale = sc.get(), a.amax = amax.get(), a.out = out.get(), a.out_t = out_t.get();
  a.colsum_partial = k.colsum ? partial.get() : nullptr;
  fp8_cast(a, nullptr);
  if (k.colsum) fp8_colsum_finish(partial.get(), k.rows, k.cols, db.get(), 0, 0, nullptr);
  sync();
  const std::vector<uint8_t> got = out.download(), got_t = out_t.download();
  const bool exact = k.op == Fp8CastOp::identity;
  int off = 0, far = 0;
  for (int r = 0; r < k.rows; ++r)
    for (int c = 0; c < k.cols; ++c) {
      const size_t i = static_cast<size_t>(r) * k.cols + c;
      const int d = std::abs(static_cast<int>(got[i] & 0x7F) - static_cast<int>(ref[i] & 0x7F));
      off += got[i] != ref[i];
      far += d > 1 || ((got[i] ^ ref[i]) & 0x80 && (got[i] & 0x7F) && (ref[i] & 0x7F));
      if (got_t[static_cast<size_t>(c) * k.rows + r] != got[i]) ++far;  // the transpose is the same code
    }
  if (exact) CHECK(off == 0);
  CHECK(far == 0);
  if (exact) CHECK(amax.download()[0] == std::max(ref_amax, 0.5f));
  else CHECK(amax.download()[0] == doctest::Approx(std::max(ref_amax, 0.5f)).epsilon(1e-5));
  if (k.colsum) {
    std::vector<float> ref_db(static_cast<size_t>(k.cols), 1.f);
    for (int r = 0; r < k.rows; ++r)
      for (int c = 0; c < k.cols; ++c) ref_db[static_cast<size_t>(c)] += v[static_cast<size_t>(r) * k.cols + c];
    CHECK(rel_l2(db.download(), ref_db) < (exact ? 1e-5 : 1e-4));
  }
}

}  // namespace

TEST_CASE("FP8 cast: bf16 -> E4M3 and E5M2, with the transposed copy, amax and column sums") {
  for (Fp8Format f : {Fp8Format::e4m3, Fp8Format::e5m2}) {
    run_case({128, 192, Fp8CastOp::identity, f, false, true});
    run_case({80, 48, Fp8CastOp::identity, f, false, true});  // partial 64-row and 64-column tiles
  }
  run_case({64, 64, Fp8CastOp::identity, Fp8Format::e4m3, true, false});  // fp32 input (the weights)
}

TEST_CASE("FP8 cast fused with GELU (forward) and GELU' (backward, with the bias gradient)") {
  run_case({96, 256, Fp8CastOp::gelu, Fp8Format::e4m3, false, false});
  run_case({96, 256, Fp8CastOp::dgelu, Fp8Format::e5m2, false, true});
}

TEST_CASE("FP8 cast: column blocks at a stride (Q, K, V kernels as one matrix), block-wise bias sums") {
  // three [32, 48] blocks 2000 floats apart, cast as one [32, 144]
  const int rows = 32, bc = 48, stride = 2000;
  std::mt19937_64 g(3);
  const std::vector<float> flat = random_vec(static_cast<size_t>(2 * stride + rows * bc), g);
  std::vector<float> wide(static_cast<size_t>(rows) * 3 * bc);
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < bc; ++c)
        wide[static_cast<size_t>(r) * 3 * bc + b * bc + c] = flat[static_cast<size_t>(b) * stride + r * bc + c];
  auto src = DeviceBuffer<float>::from(flat);
  auto sc = scalar(200.f), amax = scalar(0.f);
  DeviceBuffer<uint8_t> out(wide.size()), out_t(wide.size());
  DeviceBuffer<float> partial(static_cast<size_t>(fp8_colsum_tiles(rows)) * 3 * bc);
  auto db = DeviceBuffer<float>::from(std::vector<float>(static_cast<size_t>(2 * 100 + bc), 0.f));
  Fp8CastArgs a;
  a.x_f32 = src.get();
  a.rows = rows, a.cols = 3 * bc, a.ld = bc, a.block_cols = bc, a.block_stride = stride;
  a.scale = sc.get(), a.amax = amax.get(), a.out = out.get(), a.out_t = out_t.get(), a.colsum_partial = partial.get();
  fp8_cast(a, nullptr);
  fp8_colsum_finish(partial.get(), rows, 3 * bc, db.get(), bc, 100, nullptr);  // biases 100 floats apart
  sync();
  CHECK(out.download() == quantize(wide, 200.f, Fp8Format::e4m3));
  std::vector<float> ref_db(static_cast<size_t>(2 * 100 + bc), 0.f);
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < bc; ++c) ref_db[static_cast<size_t>(b) * 100 + c] += wide[static_cast<size_t>(r) * 3 * bc + b * bc + c];
  CHECK(rel_l2(db.download(), ref_db) < 1e-5);
}

TEST_CASE("FP8 cast: inf and NaN reach the amax (as the recipe expects), saturating in the codes") {
  std::vector<float> x(16 * 16, 1.f);
  x[5] = INFINITY;
  auto xb = upload_bf16(x);
  auto sc = scalar(1.f), amax = scalar(0.f);
  DeviceBuffer<uint8_t> out(x.size());
  Fp8CastArgs a;
  a.x_bf16 = xb.get(), a.rows = 16, a.cols = 16, a.scale = sc.get(), a.amax = amax.get(), a.out = out.get();
  fp8_cast(a, nullptr);
  sync();
  CHECK(std::isinf(amax.download()[0]));
  CHECK(out.download()[5] == 0x7E);  // satfinite
  x[7] = std::numeric_limits<float>::quiet_NaN();
  auto xn = upload_bf16(x);
  a.x_bf16 = xn.get();
  fp8_cast(a, nullptr);
  sync();
  CHECK(std::isnan(amax.download()[0]));  // NaN > inf as float bits
}

TEST_CASE("FP8 scaling update == trainer/model/fp8_scaling.h on the host, history 1 and 4, margin 0 and 1") {
  for (int len : {1, 4})
    for (int margin : {0, 1}) {
      const std::vector<Fp8Format> formats = {Fp8Format::e4m3, Fp8Format::e5m2, Fp8Format::e4m3, Fp8Format::e5m2,
                                              Fp8Format::e4m3};
      Fp8Scaling s(formats, Fp8Options{true, len, margin});
      const int n = s.count();
      std::vector<float> h(static_cast<size_t>(len) * n, 0.f), scale(static_cast<size_t>(n), 1.f), inv = scale;
      std::mt19937_64 g(static_cast<uint64_t>(len * 10 + margin));
      std::uniform_real_distribution<float> u(0.f, 10.f);
      for (int step = 0; step < 12; ++step) {
        // this step's amaxes as the casts would leave them (tensor 4: none at all; step 5: inf; step 7: NaN)
        std::vector<float> amax(static_cast<size_t>(n));
        for (int t = 0; t < n; ++t) amax[static_cast<size_t>(t)] = t == 4 ? 0.f : u(g);
        if (step == 5) amax[1] = INFINITY;
        if (step == 7) amax[2] = std::numeric_limits<float>::quiet_NaN();
        BERT_CUDA_CHECK(cudaMemcpy(s.current_amax(), amax.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        for (int t = 0; t < n; ++t) h[static_cast<size_t>(t)] = amax[static_cast<size_t>(t)];
        s.update(nullptr);
        for (int t = 0; t < n; ++t)
          bert::model::fp8_update(h.data() + t, len, static_cast<size_t>(n), &scale[static_cast<size_t>(t)],
                                  &inv[static_cast<size_t>(t)], s.scaled_max()[static_cast<size_t>(t)]);
        sync();
        const std::vector<float> dh = s.history(), ds = s.scales(), di = s.scale_invs();
        for (size_t i = 0; i < h.size(); ++i) CHECK((dh[i] == h[i] || (std::isnan(dh[i]) && std::isnan(h[i]))));
        CHECK(ds == scale);
        CHECK(di == inv);
      }
      CHECK(s.scales()[4] == 1.f);  // a tensor never cast keeps the initial scale
    }
}
