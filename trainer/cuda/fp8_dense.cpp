#include "trainer/cuda/fp8_dense.h"

#include <algorithm>
#include <string>

#include "trainer/cuda/check.h"
#include "trainer/cuda/fp8_cast.h"
#include "trainer/cuda/op_timer.h"
#include "trainer/model/forward_types.h"

namespace bert::cuda {
namespace {

using bf16 = __nv_bfloat16;
using model::Fp8Format;

size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

std::vector<Fp8Format> formats(int layers) {
  std::vector<Fp8Format> f;
  for (int l = 0; l < layers; ++l)
    for (int t = 0; t < Fp8DenseLayers::kTensorsPerLayer; ++t)
      f.push_back(t < Fp8DenseLayers::kQkvGrad ? Fp8Format::e4m3 : Fp8Format::e5m2);
  return f;
}

}  // namespace

Fp8DenseLayers::Fp8DenseLayers(const model::ParamLayout& layout, LtContext& lt, int rows, int seq_len,
                               const Fp8Options& opt)
    : layout_(layout),
      H_(layout.config.hidden),
      I_(layout.config.intermediate),
      max_tokens_(rows * seq_len),
      scaling_(formats(layout.config.layers), opt),
      gemm_(lt) {
  if (H_ % 16 || I_ % 16 || seq_len % 16)
    throw model::BatchError("run.precision fp8: the FP8 GEMMs need hidden (" + std::to_string(H_) + "), intermediate (" +
                            std::to_string(I_) + ") and max_seq_length (" + std::to_string(seq_len) +
                            ") in multiples of 16");
  const int T = max_tokens_, H = H_, I = I_;
  layers_.resize(layout.layer.size());
  for (Layer& L : layers_) {
    L.w_qkv = DeviceBuffer<uint8_t>(sz(H, 3 * H));
    L.w_qkv_t = DeviceBuffer<uint8_t>(sz(3 * H, H));
    L.w_ao = DeviceBuffer<uint8_t>(sz(H, H));
    L.w_ao_t = DeviceBuffer<uint8_t>(sz(H, H));
    L.w_i = DeviceBuffer<uint8_t>(sz(H, I));
    L.w_i_t = DeviceBuffer<uint8_t>(sz(I, H));
    L.w_o = DeviceBuffer<uint8_t>(sz(I, H));
    L.w_o_t = DeviceBuffer<uint8_t>(sz(H, I));
    L.qkv_bias = DeviceBuffer<bf16>(static_cast<size_t>(3 * H));
    L.x_t = DeviceBuffer<uint8_t>(sz(H, T));
    L.ctx_t = DeviceBuffer<uint8_t>(sz(H, T));
    L.h1_t = DeviceBuffer<uint8_t>(sz(H, T));
    L.act_t = DeviceBuffer<uint8_t>(sz(I, T));
  }
  const int widest = std::max(3 * H, I);
  in8_ = DeviceBuffer<uint8_t>(sz(T, std::max(H, I)));
  dy8_ = DeviceBuffer<uint8_t>(sz(T, widest));
  dy8t_ = DeviceBuffer<uint8_t>(sz(widest, T));
  colsum_ = DeviceBuffer<float>(sz(fp8_colsum_tiles(T), widest));
}

void Fp8DenseLayers::cast_weights(const float* P, const bf16* P16, cudaStream_t st) {
  const int H = H_, I = I_;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const model::LayerOffsets& o = layout_.layer[l];
    Layer& L = layers_[l];
    const int li = static_cast<int>(l);
    auto cast = [&](size_t offset, int in, int out, int block, int64_t stride, int t, uint8_t* w8, uint8_t* w8t) {
      Fp8CastArgs a;
      a.x_f32 = P + offset;
      a.rows = in;
      a.cols = out;
      a.ld = block ? block : out;
      a.block_cols = block;
      a.block_stride = stride;
      a.format = Fp8Format::e4m3;
      a.scale = scaling_.scale(tensor(li, static_cast<Tensor>(t)));
      a.amax = scaling_.amax(tensor(li, static_cast<Tensor>(t)));
      a.out = w8;
      a.out_t = w8t;
      fp8_cast(a, st);
    };
    const auto qkv_stride = static_cast<int64_t>(o.k_w - o.q_w);
    cast(o.q_w, H, 3 * H, H, qkv_stride, kQkvW, L.w_qkv.get(), L.w_qkv_t.get());  // [Wq Wk Wv] as one [H, 3H]
    cast(o.ao_w, H, H, 0, 0, kAoW, L.w_ao.get(), L.w_ao_t.get());
    cast(o.i_w, H, I, 0, 0, kFc1W, L.w_i.get(), L.w_i_t.get());
    cast(o.o_w, I, H, 0, 0, kFc2W, L.w_o.get(), L.w_o_t.get());
    // the three biases, contiguous for the fused projection's epilogue
    BERT_CUDA_CHECK(cudaMemcpy2DAsync(L.qkv_bias.get(), H * sizeof(bf16), P16 + o.q_b,
                                      static_cast<size_t>(o.k_b - o.q_b) * sizeof(bf16), H * sizeof(bf16), 3,
                                      cudaMemcpyDeviceToDevice, st));
  }
}

Fp8CastArgs Fp8DenseLayers::activation_cast(const bf16* x, Fp8CastOp op, const bf16* aux, Fp8Format format,
                                             int tensor, bool record, uint8_t* out, uint8_t* out_t, int T,
                                             int cols) {
  Fp8CastArgs a;
  a.x_bf16 = x;
  a.rows = T;
  a.cols = cols;
  a.op = op;
  a.aux = aux;
  a.format = format;
  a.scale = scaling_.scale(tensor);
  a.amax = record ? scaling_.amax(tensor) : nullptr;
  a.out = out;
  a.out_t = out_t;
  return a;
}

void Fp8DenseLayers::dense_forward(const bf16* x, Fp8CastOp op, int x_tensor, uint8_t* x_t, const uint8_t* wt,
                                   int w_tensor, const bf16* bias, bf16* y, int T, int in, int out, cudaStream_t st) {
  mark_part(timer_, model::StepOp::Fp8CastFwd, st, [&] {
    fp8_cast(activation_cast(x, op, nullptr, Fp8Format::e4m3, x_tensor, recording_, in8_.get(), x_t, T, in), st);
  });
  // Transformer Engine's forward GEMMs: fast accumulation (no split accumulation)
  gemm_.run({.x = {in8_.get(), Fp8Format::e4m3, scaling_.scale_inv(x_tensor), in},
             .w = {wt, Fp8Format::e4m3, scaling_.scale_inv(w_tensor), in}, .rows = T, .cols = out, .k = in, .d = y,
             .d_type = Fp8OutType::bf16, .bias = bias, .fast_accum = true},
            st);
}

void Fp8DenseLayers::cast_grad(const bf16* dy, Fp8CastOp op, const bf16* pre, int grad_tensor, int T, int out,
                               float* db, int block, int64_t block_stride, cudaStream_t st) {
  Fp8CastArgs a = activation_cast(dy, op, pre, Fp8Format::e5m2, grad_tensor, true, dy8_.get(), dy8t_.get(), T, out);
  a.colsum_partial = colsum_.get();
  mark_part(timer_, model::StepOp::Fp8CastBwd, st, [&] {
    fp8_cast(a, st);
    fp8_colsum_finish(colsum_.get(), T, out, db, block, block_stride, st);
  });
}

void Fp8DenseLayers::data_grad(int grad_tensor, const uint8_t* w8, int w_tensor, bf16* dx, float beta, int T, int in,
                               int out, cudaStream_t st) {
  gemm_.run({.x = {dy8_.get(), Fp8Format::e5m2, scaling_.scale_inv(grad_tensor), out},
             .w = {w8, Fp8Format::e4m3, scaling_.scale_inv(w_tensor), out}, .rows = T, .cols = in, .k = out, .d = dx,
             .d_type = Fp8OutType::bf16, .beta = beta},
            st);
}

void Fp8DenseLayers::weight_grad(const uint8_t* xt, int x_tensor, int grad_tensor, int64_t dy_row0, float* dw, int T,
                                 int in, int out, cudaStream_t st) {
  gemm_.run({.x = {xt, Fp8Format::e4m3, scaling_.scale_inv(x_tensor), T},
             .w = {dy8t_.get() + dy_row0 * T, Fp8Format::e5m2, scaling_.scale_inv(grad_tensor), T}, .rows = in,
             .cols = out, .k = T, .d = dw, .d_type = Fp8OutType::f32, .beta = 1.f},
            st);
}

void Fp8DenseLayers::qkv_forward(int l, const bf16* x, bf16* qkv, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  dense_forward(x, Fp8CastOp::identity, tensor(l, kQkvIn), L.x_t.get(), L.w_qkv_t.get(), tensor(l, kQkvW),
                L.qkv_bias.get(), qkv, T, H_, 3 * H_, st);
}

void Fp8DenseLayers::attn_out_forward(int l, const bf16* ctx, const bf16* P16, bf16* ao, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  dense_forward(ctx, Fp8CastOp::identity, tensor(l, kAoIn), L.ctx_t.get(), L.w_ao_t.get(), tensor(l, kAoW),
                P16 + o.ao_b, ao, T, H_, H_, st);
}

void Fp8DenseLayers::ffn_in_forward(int l, const bf16* h1, const bf16* P16, bf16* pre, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  dense_forward(h1, Fp8CastOp::identity, tensor(l, kFc1In), L.h1_t.get(), L.w_i_t.get(), tensor(l, kFc1W),
                P16 + o.i_b, pre, T, H_, I_, st);
}

void Fp8DenseLayers::ffn_out_forward(int l, const bf16* pre, const bf16* P16, bf16* fo, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  // GELU(pre) exists only as its FP8 copies, written by the cast
  dense_forward(pre, Fp8CastOp::gelu, tensor(l, kFc2In), L.act_t.get(), L.w_o_t.get(), tensor(l, kFc2W), P16 + o.o_b,
                fo, T, I_, H_, st);
}

void Fp8DenseLayers::dense_backward(int l, Tensor in, Tensor w, Tensor grad, const bf16* dy, Fp8CastOp op,
                                    const bf16* pre, const uint8_t* x_t, const uint8_t* w8, bf16* dx, float beta,
                                    float* db, float* dw, int T, int n_in, int n_out, cudaStream_t st) {
  cast_grad(dy, op, pre, tensor(l, grad), T, n_out, db, 0, 0, st);
  data_grad(tensor(l, grad), w8, tensor(l, w), dx, beta, T, n_in, n_out, st);
  weight_grad(x_t, tensor(l, in), tensor(l, grad), 0, dw, T, n_in, n_out, st);
}

void Fp8DenseLayers::ffn_out_backward(int l, const bf16* dfo, bf16* dact, float* G, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  dense_backward(l, kFc2In, kFc2W, kFc2Grad, dfo, Fp8CastOp::identity, nullptr, L.act_t.get(), L.w_o.get(), dact, 0.f,
                 G + o.o_b, G + o.o_w, T, I_, H_, st);
}

void Fp8DenseLayers::ffn_in_backward(int l, const bf16* dact, const bf16* pre, bf16* dh1, float* G, int T,
                                     cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  // dpre = dact * GELU'(pre): its FP8 copies and the intermediate bias gradient in one pass
  dense_backward(l, kFc1In, kFc1W, kFc1Grad, dact, Fp8CastOp::dgelu, pre, L.h1_t.get(), L.w_i.get(), dh1, 1.f,
                 G + o.i_b, G + o.i_w, T, H_, I_, st);
}

void Fp8DenseLayers::attn_out_backward(int l, const bf16* dao, bf16* dctx, float* G, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  dense_backward(l, kAoIn, kAoW, kAoGrad, dao, Fp8CastOp::identity, nullptr, L.ctx_t.get(), L.w_ao.get(), dctx, 0.f,
                 G + o.ao_b, G + o.ao_w, T, H_, H_, st);
}

void Fp8DenseLayers::qkv_backward(int l, const bf16* dqkv, bf16* dx, float* G, int T, cudaStream_t st) {
  Layer& L = layers_[static_cast<size_t>(l)];
  const model::LayerOffsets& o = layout_.layer[static_cast<size_t>(l)];
  const int H = H_;
  const auto stride = static_cast<int64_t>(o.k_w - o.q_w);
  cast_grad(dqkv, Fp8CastOp::identity, nullptr, tensor(l, kQkvGrad), T, 3 * H, G + o.q_b, H, static_cast<int64_t>(o.k_b - o.q_b), st);
  data_grad(tensor(l, kQkvGrad), L.w_qkv.get(), tensor(l, kQkvW), dx, 1.f, T, H, 3 * H, st);
  for (int b = 0; b < 3; ++b)  // Q, K, V: each its [H, H] block of the flat gradient buffer
    weight_grad(L.x_t.get(), tensor(l, kQkvIn), tensor(l, kQkvGrad), static_cast<int64_t>(b) * H, G + o.q_w + b * stride,
                T, H, H, st);
}

void Fp8DenseLayers::end_step(const float* P, const bf16* P16, cudaStream_t st) {
  scaling_.update(st);
  cast_weights(P, P16, st);
}

}  // namespace bert::cuda
