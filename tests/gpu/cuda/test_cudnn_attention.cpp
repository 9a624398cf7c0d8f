// cuDNN's fused attention (cudnn_attention.h) against the CPU trainer's attention, as cuda_attention checks
// ours: padded rows and packs of several sequences as one ragged batch, forward O and backward dQ/dK/dV per
// part within the bf16 bounds (trainer/cuda/README.md), rows outside every sequence zero. With dropout
// cuDNN draws its own masks (not the CPU's), so the comparison is the one its dropout allows: the mask it
// drew (its debugging output) goes into the CPU reference, forward and backward; the keep rate is checked
// statistically; the same key gives the same output, another micro-step another mask; and forward and
// backward replayed from a captured CUDA graph equal the eager ones. SKIPPED where the build has no cuDNN.
#include <algorithm>
#include <cmath>

#include "tests/gpu/cuda/gpu_test.h"
#include "tests/unit/cuda/attention_layout.h"
#include "trainer/cpu/attention.h"
#include "trainer/cuda/cudnn_attention.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// A batch of rows x seq_len tokens, each row holding the given sequence lengths back to back, with its
// random bf16 qkv and output gradient, in the flat layout and the CPU's compact one.
struct Case {
  int seq_len = 0, heads = 0, H = 0, T = 0, S = 0, max_len = 0;
  std::vector<int32_t> start{0}, first, lens;
  std::vector<float> qkv, dout, q, k, v, dctx;
  std::vector<int64_t> prob_off;

  Case(int seq, const std::vector<std::vector<int>>& rows, int h, uint64_t seed) : seq_len(seq), heads(h) {
    const Layout lay(seq, h, rows);
    H = lay.hd(), T = lay.tokens(), S = lay.num_seqs(), max_len = lay.max_len();
    start = lay.start, first = lay.first_flat, lens = lay.lengths;
    std::mt19937_64 g(seed);
    qkv = random_vec(static_cast<size_t>(T) * 3 * H, g, -2.f, 2.f);
    for (float& x : qkv) x = round_bf16(x);
    dout.assign(static_cast<size_t>(T) * H, 0.f);
    const size_t n = static_cast<size_t>(start[S]) * H;
    q.resize(n), k.resize(n), v.resize(n), dctx.resize(n);
    const auto grad = random_vec(n, g);
    for (int s = 0; s < S; ++s)
      for (int i = 0; i < lens[s]; ++i) {
        const size_t flat = static_cast<size_t>(first[s] + i), c = static_cast<size_t>(start[s] + i);
        for (int j = 0; j < H; ++j) {
          q[c * H + j] = qkv[flat * 3 * H + j];
          k[c * H + j] = qkv[flat * 3 * H + H + j];
          v[c * H + j] = qkv[flat * 3 * H + 2 * H + j];
          dctx[c * H + j] = dout[flat * H + j] = round_bf16(grad[c * H + j]);
        }
      }
    prob_off = bert::cpu::attention_prob_offsets(start.data(), S, heads);
  }

  bert::cpu::AttentionShape cpu_shape() const {
    bert::cpu::AttentionShape cs;
    cs.heads = heads;
    cs.head_dim = 64;
    cs.seq_len = seq_len;
    cs.start = start.data();
    cs.first_flat = first.data();
    cs.num_seqs = S;
    cs.prob_offset = prob_off.data();
    return cs;
  }
  AttentionShape shape() const { return AttentionShape{T, seq_len, heads, S, max_len}; }

  // The CPU reference in the flat layout (zeros outside the sequences). keep: the dropout mask per
  // probability (prob_off layout) or empty (no dropout).
  void reference(float p, const std::vector<uint8_t>& keep, std::vector<float>& out,
                 std::vector<float>& dqkv) const {
    const auto cs = cpu_shape();
    std::vector<float> probs(static_cast<size_t>(prob_off[S])), ctx(q.size()), dq(q.size()), dk(q.size()),
        dv(q.size());
    std::vector<uint8_t> kept(probs.size(), 1);
    bert::cpu::attention_forward_ref(cs, q.data(), k.data(), v.data(), probs.data(), kept.data(), ctx.data(), {}, 0.f);
    if (p > 0.f) {  // ctx = (P * keep / (1-p)) V with cuDNN's mask
      kept = keep;
      std::fill(ctx.begin(), ctx.end(), 0.f);
      for (int s = 0; s < S; ++s)
        for (int h = 0; h < heads; ++h)
          for (int i = 0; i < lens[s]; ++i)
            for (int j = 0; j < lens[s]; ++j) {
              const size_t e = static_cast<size_t>(prob_off[s] + (static_cast<int64_t>(h) * lens[s] + i) * lens[s] + j);
              if (!kept[e]) continue;
              const float w = probs[e] / (1.f - p);
              for (int d = 0; d < 64; ++d)
                ctx[static_cast<size_t>(start[s] + i) * H + h * 64 + d] +=
                    w * v[static_cast<size_t>(start[s] + j) * H + h * 64 + d];
            }
    }
    bert::cpu::attention_backward_ref(cs, q.data(), k.data(), v.data(), probs.data(), kept.data(), dctx.data(),
                                      dq.data(), dk.data(), dv.data(), p);
    out.assign(static_cast<size_t>(T) * H, 0.f);
    dqkv.assign(static_cast<size_t>(T) * 3 * H, 0.f);
    for (int s = 0; s < S; ++s)
      for (int i = 0; i < lens[s]; ++i) {
        const size_t flat = static_cast<size_t>(first[s] + i), c = static_cast<size_t>(start[s] + i);
        for (int j = 0; j < H; ++j) {
          out[flat * H + j] = ctx[c * H + j];
          dqkv[flat * 3 * H + j] = dq[c * H + j];
          dqkv[flat * 3 * H + H + j] = dk[c * H + j];
          dqkv[flat * 3 * H + 2 * H + j] = dv[c * H + j];
        }
      }
  }

  // cuDNN's [entries, heads, seq_len, seq_len] mask in the CPU's per-sequence layout.
  std::vector<uint8_t> keep_of(const std::vector<float>& mask) const {
    std::vector<uint8_t> keep(static_cast<size_t>(prob_off[S]));
    for (int s = 0; s < S; ++s)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < lens[s]; ++i)
          for (int j = 0; j < lens[s]; ++j)
            keep[static_cast<size_t>(prob_off[s] + (static_cast<int64_t>(h) * lens[s] + i) * lens[s] + j)] =
                mask[((static_cast<size_t>(s) * heads + h) * seq_len + i) * seq_len + j] != 0.f;
    return keep;
  }
};

void check_parts(const Case& c, const std::vector<float>& dqkv, const std::vector<float>& ref) {
  CHECK(rel_l2(dqkv, ref) < 2e-2);
  for (int part = 0; part < 3; ++part) {  // so that a wrong dK or dV cannot hide behind a large dQ
    CAPTURE(part);
    std::vector<float> a, b;
    for (int t = 0; t < c.T; ++t)
      for (int j = 0; j < c.H; ++j) {
        a.push_back(dqkv[static_cast<size_t>(t) * 3 * c.H + part * c.H + j]);
        b.push_back(ref[static_cast<size_t>(t) * 3 * c.H + part * c.H + j]);
      }
    CHECK(rel_l2(a, b) < 2e-2);
  }
}

// Device buffers of one case and one forward + backward.
struct Run {
  DeviceBuffer<bf16> qkv, dout, out, dqkv;
  DeviceBuffer<int32_t> first, lens;
  DeviceBuffer<float> stats, mask;
  DeviceBuffer<int64_t> rng{2};
  explicit Run(const Case& c, bool dump_mask)
      : qkv(upload_bf16(c.qkv)),
        dout(upload_bf16(c.dout)),
        out(poisoned<bf16>(static_cast<size_t>(c.T) * c.H)),
        dqkv(poisoned<bf16>(static_cast<size_t>(c.T) * 3 * c.H)),
        first(DeviceBuffer<int32_t>::from(c.first)),
        lens(DeviceBuffer<int32_t>::from(c.lens)),
        stats(cudnn_attention_stats_floats(c.shape())),
        mask(dump_mask ? static_cast<size_t>(c.S) * c.heads * c.seq_len * c.seq_len : 0) {}
  void queue(CudnnAttention& att, const Case& c, const DropoutSpec& d, cudaStream_t st) {
    att.set_batch(c.shape(), first.get(), lens.get(), st);
    att.forward(CudnnForwardArgs{c.shape(), qkv.get(), d, true, out.get(), stats.get(), rng.get(), mask.get()}, st);
    att.backward(CudnnBackwardArgs{c.shape(), qkv.get(), out.get(), dout.get(), stats.get(), d, rng.get(), dqkv.get()},
                 st);
  }
};

void check_against_cpu(int seq_len, const std::vector<std::vector<int>>& rows, int heads, float p, uint64_t seed) {
  CAPTURE(seq_len);
  CAPTURE(heads);
  CAPTURE(p);
  auto att = CudnnAttention::create();
  if (!att) {
    MESSAGE("SKIPPED (this build has no cuDNN)");
    return;
  }
  const Case c(seq_len, rows, heads, seed);
  Run run(c, p > 0.f);
  const DropoutSpec d{p, {seed + 99, 0, 2, 4}};
  run.queue(*att, c, d, nullptr);
  bert::cuda::test::sync();
  std::vector<uint8_t> keep;
  if (p > 0.f) {
    keep = c.keep_of(run.mask.download());
    const double kept = static_cast<double>(std::count(keep.begin(), keep.end(), uint8_t{1}));
    const double n = static_cast<double>(keep.size()), sd = std::sqrt(n * p * (1 - p));
    CHECK(std::abs(kept - n * (1 - p)) < 5 * sd);  // the keep rate: 1 - p within 5 standard deviations
  }
  std::vector<float> out_ref, dqkv_ref;
  c.reference(p, keep, out_ref, dqkv_ref);
  CHECK(rel_l2(download_bf16(run.out), out_ref) < 1e-2);  // padding rows: 0 on both sides
  check_parts(c, download_bf16(run.dqkv), dqkv_ref);
}

}  // namespace

TEST_CASE("cuDNN attention without dropout: padded rows and packs against the CPU") {
  MESSAGE("cuDNN library version " << CudnnAttention::library_version() << " (0: not built)");
  check_against_cpu(64, {{64}, {40}, {33}, {50}}, 2, 0.f, 1);       // padded rows
  check_against_cpu(64, {{20, 44}, {60}, {1, 30, 33}}, 2, 0.f, 2);   // packs, a 1-token sequence
  check_against_cpu(128, {{128}, {77, 51}, {100}}, 4, 0.f, 3);       // several key tiles
  check_against_cpu(512, {{300, 200}, {512}}, 2, 0.f, 4);            // BERT's 512
}

TEST_CASE("cuDNN attention with dropout: against the CPU with the mask cuDNN drew") {
  check_against_cpu(64, {{64}, {40}, {33}, {50}}, 2, 0.1f, 5);
  check_against_cpu(128, {{77, 51}, {100}, {20, 30, 70}}, 4, 0.1f, 6);
}

TEST_CASE("cuDNN attention: the same key the same output; another micro-step another mask; a captured graph") {
  auto att = CudnnAttention::create();
  if (!att) {
    MESSAGE("SKIPPED (this build has no cuDNN)");
    return;
  }
  const Case c(128, {{77, 51}, {100}, {128}}, 2, 7);
  cudaStream_t st = nullptr;
  BERT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  // the micro-step from device memory, as a captured step reads it
  auto step = DeviceBuffer<uint32_t>::from({3u});
  const DropoutSpec d{0.1f, {11, 0, 0, 4}, step.get()};
  Run a(c, false), b(c, false), g(c, false);
  a.queue(*att, c, d, st);
  b.queue(*att, c, d, st);
  BERT_CUDA_CHECK(cudaStreamSynchronize(st));
  CHECK(a.out.download() == b.out.download());  // the same Philox key: the same mask, the same kernels
  // captured once, replayed: the same as eager
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  BERT_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  g.queue(*att, c, d, st);
  BERT_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
  BERT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  BERT_CUDA_CHECK(cudaGraphLaunch(exec, st));
  BERT_CUDA_CHECK(cudaStreamSynchronize(st));
  CHECK(g.out.download() == a.out.download());
  CHECK(rel_l2(download_bf16(g.dqkv), download_bf16(a.dqkv)) < 1e-5);  // dQ: cuDNN's order of additions
  // another micro-step, replayed from the same graph: another mask
  BERT_CUDA_CHECK(cudaMemcpy(step.get(), std::vector<uint32_t>{4u}.data(), sizeof(uint32_t), cudaMemcpyHostToDevice));
  BERT_CUDA_CHECK(cudaGraphLaunch(exec, st));
  BERT_CUDA_CHECK(cudaStreamSynchronize(st));
  CHECK(g.out.download() != a.out.download());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(st);
}
