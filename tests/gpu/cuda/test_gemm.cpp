// cuBLASLt dense layers against plain double loops (and cpu::gelu_* for the epilogues):
// both weight layouts, the bias / bias+GELU / GELU-backward / bias-gradient epilogues, accumulation
// (beta = 1), the strided batch used for the fused QKV projection, and dense_backward (a layer's
// whole backward, accumulating into existing dX, dW and db) on both.
#include <cmath>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cuda/gemm.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// W element (i = input index, o = output index) in either layout.
float w_at(const std::vector<float>& w, WeightLayout l, int in, int out, int i, int o) {
  return l == WeightLayout::KernelInOut ? w[static_cast<size_t>(i) * out + o] : w[static_cast<size_t>(o) * in + i];
}

struct Case {
  int T, in, out;
  WeightLayout layout;
};

void check_dense(const Case& c, uint64_t seed) {
  CAPTURE(c.T);
  CAPTURE(c.in);
  CAPTURE(c.out);
  CAPTURE(static_cast<int>(c.layout));
  std::mt19937_64 g(seed);
  auto x = random_vec(static_cast<size_t>(c.T) * c.in, g);
  auto w = random_vec(static_cast<size_t>(c.in) * c.out, g, -0.2f, 0.2f);
  auto b = random_vec(c.out, g);
  auto dy = random_vec(static_cast<size_t>(c.T) * c.out, g);
  auto aux = random_vec(static_cast<size_t>(c.T) * c.in, g, -3.f, 3.f);  // pre-activation of X's producer
  auto dx0 = random_vec(static_cast<size_t>(c.T) * c.in, g);             // existing dX for beta = 1
  auto dw0 = random_vec(w.size(), g);                                    // existing dW for beta = 1

  std::vector<float> y(static_cast<size_t>(c.T) * c.out), dx(x.size()), dxacc(x.size()), dw(w.size()), db(c.out, 0.f);
  for (int t = 0; t < c.T; ++t)
    for (int o = 0; o < c.out; ++o) {
      double s = b[o];
      for (int i = 0; i < c.in; ++i) s += static_cast<double>(x[static_cast<size_t>(t) * c.in + i]) * w_at(w, c.layout, c.in, c.out, i, o);
      y[static_cast<size_t>(t) * c.out + o] = static_cast<float>(s);
      db[o] += dy[static_cast<size_t>(t) * c.out + o];
    }
  for (int t = 0; t < c.T; ++t)
    for (int i = 0; i < c.in; ++i) {
      double s = 0;
      for (int o = 0; o < c.out; ++o) s += static_cast<double>(dy[static_cast<size_t>(t) * c.out + o]) * w_at(w, c.layout, c.in, c.out, i, o);
      dx[static_cast<size_t>(t) * c.in + i] = static_cast<float>(s);
      dxacc[static_cast<size_t>(t) * c.in + i] = static_cast<float>(s) + dx0[static_cast<size_t>(t) * c.in + i];
    }
  for (int i = 0; i < c.in; ++i)
    for (int o = 0; o < c.out; ++o) {
      double s = 0;
      for (int t = 0; t < c.T; ++t) s += static_cast<double>(x[static_cast<size_t>(t) * c.in + i]) * dy[static_cast<size_t>(t) * c.out + o];
      const size_t k = c.layout == WeightLayout::KernelInOut ? static_cast<size_t>(i) * c.out + o : static_cast<size_t>(o) * c.in + i;
      dw[k] = static_cast<float>(s) + dw0[k];
    }
  std::vector<float> y_gelu(y.size()), dx_dgelu(dx.size());
  bert::cpu::gelu_forward(y.data(), y_gelu.data(), y.size());
  bert::cpu::gelu_backward(aux.data(), dx.data(), dx_dgelu.data(), dx.size());

  LtContext lt;
  Gemm gemm(lt);
  auto d_x = upload_bf16(x), d_w = upload_bf16(w), d_b = upload_bf16(b), d_dy = upload_bf16(dy), d_aux = upload_bf16(aux);
  auto d_y = poisoned<bf16>(y.size()), d_yg = poisoned<bf16>(y.size()), d_pre = poisoned<bf16>(y.size());
  auto d_dx = poisoned<bf16>(x.size()), d_dxg = poisoned<bf16>(x.size());
  auto d_dxacc = upload_bf16(dx0);
  auto d_dw = DeviceBuffer<float>::from(dw0);
  auto d_db = poisoned<float>(c.out);
  gemm.forward(d_x.get(), d_w.get(), c.layout, d_b.get(), d_y.get(), c.T, c.in, c.out, false, nullptr, nullptr);
  gemm.backward_data(d_dy.get(), d_w.get(), c.layout, d_dx.get(), c.T, c.in, c.out, nullptr, 0.f, nullptr);
  gemm.backward_data(d_dy.get(), d_w.get(), c.layout, d_dxacc.get(), c.T, c.in, c.out, nullptr, 1.f, nullptr);
  gemm.backward_weight(d_x.get(), d_dy.get(), c.layout, d_dw.get(), d_db.get(), c.T, c.in, c.out, 1.f, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_y), y) < 1e-2);
  CHECK(rel_l2(download_bf16(d_dx), dx) < 1e-2);
  CHECK(rel_l2(download_bf16(d_dxacc), dxacc) < 1e-2);
  CHECK(rel_l2(d_dw.download(), dw) < 1e-4);  // bf16 products, fp32 accumulation and output
  CHECK(rel_l2(d_db.download(), db) < 1e-4);
  {  // the whole backward in one call, adding into existing dX, dW and db
    auto db0 = random_vec(c.out, g);
    std::vector<float> dbacc(db);
    for (int o = 0; o < c.out; ++o) dbacc[o] += db0[o];
    auto d_dx1 = upload_bf16(dx0);
    auto d_dw1 = DeviceBuffer<float>::from(dw0);
    auto d_db1 = DeviceBuffer<float>::from(db0);
    auto d_scratch = poisoned<float>(c.out);
    gemm.dense_backward({.x = d_x.get(), .dy = d_dy.get(), .w = d_w.get(), .layout = c.layout, .dx = d_dx1.get(),
                         .dw = d_dw1.get(), .db = d_db1.get(), .bias_scratch = d_scratch.get(), .tokens = c.T,
                         .in = c.in, .out = c.out, .dx_beta = 1.f},
                        nullptr);
    sync();
    CHECK(rel_l2(download_bf16(d_dx1), dxacc) < 1e-2);
    CHECK(rel_l2(d_dw1.download(), dw) < 1e-4);
    CHECK(rel_l2(d_db1.download(), dbacc) < 1e-4);
  }
  if (c.layout == WeightLayout::KernelInOut && c.out % 8 == 0) {  // the encoder's GELU layers
    gemm.forward(d_x.get(), d_w.get(), c.layout, d_b.get(), d_yg.get(), c.T, c.in, c.out, true, d_pre.get(), nullptr);
    gemm.backward_data(d_dy.get(), d_w.get(), c.layout, d_dxg.get(), c.T, c.in, c.out, d_aux.get(), 0.f, nullptr);
    sync();
    CHECK(rel_l2(download_bf16(d_pre), y) < 1e-2);
    CHECK(rel_l2(download_bf16(d_yg), y_gelu) < 1e-2);  // cuBLASLt's GELU is the tanh form BERT uses
    CHECK(rel_l2(download_bf16(d_dxg), dx_dgelu) < 1e-2);
  }
}

}  // namespace

TEST_CASE("dense layers, TF kernel layout [in, out]") {
  check_dense({64, 128, 512, WeightLayout::KernelInOut}, 1);   // FFN intermediate (tiny)
  check_dense({200, 512, 128, WeightLayout::KernelInOut}, 2);  // FFN output (tiny)
  check_dense({96, 1024, 1024, WeightLayout::KernelInOut}, 3);
}

TEST_CASE("dense layers, [out, in] layout: tied MLM decoder and NSP head") {
  check_dense({40, 128, 1000, WeightLayout::OutIn}, 4);
  check_dense({16, 1024, 2, WeightLayout::OutIn}, 5);
}

TEST_CASE("fused QKV: one strided-batched GEMM over Q, K, V kernels in the flat buffer") {
  const int T = 48, H = 128, stride = H * H + H + 64;  // kernel, bias and an alignment gap, as params.h lays them out
  std::mt19937_64 g(6);
  auto flat = random_vec(static_cast<size_t>(3) * stride, g, -0.2f, 0.2f);
  auto x = random_vec(static_cast<size_t>(T) * H, g);
  auto dy = random_vec(static_cast<size_t>(T) * 3 * H, g);
  std::vector<float> y(static_cast<size_t>(T) * 3 * H), dw(flat.size(), 0.f), dx(x.size(), 0.f);
  for (int p = 0; p < 3; ++p) {
    const float* w = flat.data() + static_cast<size_t>(p) * stride;
    const float* b = w + H * H;
    for (int t = 0; t < T; ++t)
      for (int o = 0; o < H; ++o) {
        double s = b[o];
        for (int i = 0; i < H; ++i) s += static_cast<double>(x[static_cast<size_t>(t) * H + i]) * w[static_cast<size_t>(i) * H + o];
        y[static_cast<size_t>(t) * 3 * H + p * H + o] = static_cast<float>(s);
      }
    float* gw = dw.data() + static_cast<size_t>(p) * stride;
    for (int i = 0; i < H; ++i)
      for (int o = 0; o < H; ++o) {
        double s = 0;
        for (int t = 0; t < T; ++t) s += static_cast<double>(x[static_cast<size_t>(t) * H + i]) * dy[static_cast<size_t>(t) * 3 * H + p * H + o];
        gw[static_cast<size_t>(i) * H + o] = static_cast<float>(s);
      }
    for (int o = 0; o < H; ++o) {
      double s = 0;
      for (int t = 0; t < T; ++t) s += dy[static_cast<size_t>(t) * 3 * H + p * H + o];
      gw[static_cast<size_t>(H) * H + o] = static_cast<float>(s);
    }
    for (int t = 0; t < T; ++t)  // Q, K and V data gradients add up in dX
      for (int i = 0; i < H; ++i) {
        double s = 0;
        for (int o = 0; o < H; ++o)
          s += static_cast<double>(dy[static_cast<size_t>(t) * 3 * H + p * H + o]) * w[static_cast<size_t>(i) * H + o];
        dx[static_cast<size_t>(t) * H + i] += static_cast<float>(s);
      }
  }
  LtContext lt;
  Gemm gemm(lt);
  auto d_flat = upload_bf16(flat), d_x = upload_bf16(x), d_dy = upload_bf16(dy);
  auto d_y = poisoned<bf16>(y.size());
  auto d_dw = DeviceBuffer<float>::from(std::vector<float>(flat.size(), 0.f));
  const GemmBatch batch{3, stride, stride, H};
  gemm.forward(d_x.get(), d_flat.get(), WeightLayout::KernelInOut, d_flat.get() + H * H, d_y.get(), T, H, H, false,
               nullptr, nullptr, 3 * H, batch);
  gemm.backward_weight(d_x.get(), d_dy.get(), WeightLayout::KernelInOut, d_dw.get(), d_dw.get() + H * H, T, H, H, 0.f,
                       nullptr, 3 * H, batch);
  sync();
  CHECK(rel_l2(download_bf16(d_y), y) < 1e-2);
  CHECK(rel_l2(d_dw.download(), dw) < 1e-4);
  // dense_backward with the forward's batch: biases in the flat buffer, data gradients summed
  auto d_dw1 = DeviceBuffer<float>::from(std::vector<float>(flat.size(), 0.f));
  auto d_dx = poisoned<bf16>(x.size());
  auto d_scratch = poisoned<float>(static_cast<size_t>(3) * H);
  gemm.dense_backward({.x = d_x.get(), .dy = d_dy.get(), .w = d_flat.get(), .dx = d_dx.get(), .dw = d_dw1.get(),
                       .db = d_dw1.get() + H * H, .bias_scratch = d_scratch.get(), .tokens = T, .in = H, .out = H,
                       .ld_dy = 3 * H, .batch = batch},
                      nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_dx), dx) < 1e-2);
  CHECK(rel_l2(d_dw1.download(), dw) < 1e-4);
}

TEST_CASE("one call shape, two sets of buffers: the cached plan takes each call's bias and aux pointers") {
  const int T = 32, in = 64, out = 128;
  std::mt19937_64 g(7);
  LtContext lt;
  Gemm gemm(lt);
  std::vector<DeviceBuffer<bf16>> alive;     // round 1's buffers cannot reuse round 0's addresses
  for (int round = 0; round < 2; ++round) {  // same shapes, fresh buffers each round
    CAPTURE(round);
    auto x = random_vec(static_cast<size_t>(T) * in, g);
    auto w = random_vec(static_cast<size_t>(in) * out, g, -0.2f, 0.2f);
    auto b = random_vec(out, g);
    std::vector<float> pre(static_cast<size_t>(T) * out), y(pre.size());
    for (int t = 0; t < T; ++t)
      for (int o = 0; o < out; ++o) {
        double s = b[o];
        for (int i = 0; i < in; ++i) s += static_cast<double>(x[static_cast<size_t>(t) * in + i]) * w[static_cast<size_t>(i) * out + o];
        pre[static_cast<size_t>(t) * out + o] = static_cast<float>(s);
      }
    bert::cpu::gelu_forward(pre.data(), y.data(), pre.size());
    auto d_x = upload_bf16(x), d_w = upload_bf16(w), d_b = upload_bf16(b);
    auto d_y = poisoned<bf16>(y.size()), d_pre = poisoned<bf16>(pre.size());
    gemm.forward(d_x.get(), d_w.get(), WeightLayout::KernelInOut, d_b.get(), d_y.get(), T, in, out, true, d_pre.get(),
                 nullptr);
    sync();
    CHECK(rel_l2(download_bf16(d_pre), pre) < 1e-2);
    CHECK(rel_l2(download_bf16(d_y), y) < 1e-2);
    for (auto* buf : {&d_x, &d_w, &d_b, &d_y, &d_pre}) alive.push_back(std::move(*buf));
  }
}
