// Fused varlen attention forward/backward against cpu::attention_* (exact softmax over each
// sequence, same counter-based dropout), for padded rows and for packs of several sequences.
#include <algorithm>

#include "tests/gpu/cuda/gpu_test.h"
#include "tests/unit/cuda/attention_layout.h"
#include "trainer/cpu/attention.h"
#include "trainer/cuda/attention.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// rows of seq_len tokens; each row holds the given sequence lengths back to back.
void check_attention(int seq_len, const std::vector<std::vector<int>>& rows, int heads, float p, uint64_t seed) {
  CAPTURE(seq_len);
  CAPTURE(heads);
  CAPTURE(p);
  const Layout lay(seq_len, heads, rows);
  const int H = lay.hd(), T = lay.tokens(), S = lay.num_seqs(), max_len = lay.max_len();
  const auto& start = lay.start;            // compact offsets (CPU layout)
  const auto& first_flat = lay.first_flat;  // Batch::seq_first_token
  const auto& lengths = lay.lengths;        // Batch::seq_lengths

  std::mt19937_64 g(seed);
  auto qkv = random_vec(static_cast<size_t>(T) * 3 * H, g, -2.f, 2.f);
  std::vector<float> dout(static_cast<size_t>(T) * H, 0.f);
  const int Tc = start[S];
  std::vector<float> q(static_cast<size_t>(Tc) * H), k(q.size()), v(q.size()), dctx(q.size());
  auto dctx_vals = random_vec(q.size(), g);
  for (int s = 0; s < S; ++s)
    for (int i = 0; i < start[s + 1] - start[s]; ++i) {
      const size_t flat = static_cast<size_t>(first_flat[s] + i), c = static_cast<size_t>(start[s] + i);
      for (int j = 0; j < H; ++j) {
        q[c * H + j] = qkv[flat * 3 * H + j];
        k[c * H + j] = qkv[flat * 3 * H + H + j];
        v[c * H + j] = qkv[flat * 3 * H + 2 * H + j];
        dctx[c * H + j] = dctx_vals[c * H + j];
        dout[flat * H + j] = dctx_vals[c * H + j];
      }
    }

  DropoutSpec d{p, {seed + 99, 0, 2, 4}};
  const bert::model::DropoutStream rng = d.rng;
  const auto prob_off = bert::cpu::attention_prob_offsets(start.data(), S, heads);
  bert::cpu::AttentionShape cs;
  cs.heads = heads;
  cs.head_dim = 64;
  cs.seq_len = seq_len;
  cs.start = start.data();
  cs.first_flat = first_flat.data();
  cs.num_seqs = S;
  cs.prob_offset = prob_off.data();
  std::vector<float> probs(static_cast<size_t>(prob_off[S])), ctx(q.size()), dq(q.size()), dk(q.size()), dv(q.size());
  std::vector<uint8_t> keep(probs.size());
  bert::cpu::attention_forward(cs, q.data(), k.data(), v.data(), probs.data(), keep.data(), ctx.data(), rng, p,
                               bert::cpu::MatmulPrecision::fp32);
  bert::cpu::attention_backward(cs, q.data(), k.data(), v.data(), probs.data(), keep.data(), dctx.data(), dq.data(),
                                dk.data(), dv.data(), p, bert::cpu::MatmulPrecision::fp32);

  // Reference in the flat layout (zeros on padding).
  std::vector<float> out_ref(static_cast<size_t>(T) * H, 0.f), dqkv_ref(static_cast<size_t>(T) * 3 * H, 0.f);
  for (int s = 0; s < S; ++s)
    for (int i = 0; i < start[s + 1] - start[s]; ++i) {
      const size_t flat = static_cast<size_t>(first_flat[s] + i), c = static_cast<size_t>(start[s] + i);
      for (int j = 0; j < H; ++j) {
        out_ref[flat * H + j] = ctx[c * H + j];
        dqkv_ref[flat * 3 * H + j] = dq[c * H + j];
        dqkv_ref[flat * 3 * H + H + j] = dk[c * H + j];
        dqkv_ref[flat * 3 * H + 2 * H + j] = dv[c * H + j];
      }
    }

  AttentionShape shape{T, seq_len, heads, S, max_len};
  auto d_qkv = upload_bf16(qkv), d_dout = upload_bf16(dout);
  auto d_first = DeviceBuffer<int32_t>::from(first_flat), d_len = DeviceBuffer<int32_t>::from(lengths);
  auto d_out = poisoned<bf16>(static_cast<size_t>(T) * H);
  auto d_lse = poisoned<float>(static_cast<size_t>(heads) * T);
  auto d_dqkv = poisoned<bf16>(static_cast<size_t>(T) * 3 * H);
  DeviceBuffer<float> scratch(attention_backward_scratch_floats(shape));
  AttentionForwardArgs fa{shape, d_qkv.get(), d_first.get(), d_len.get(), d, d_out.get(), d_lse.get()};
  attention_forward(fa, nullptr);
  AttentionBackwardArgs ba{shape, d_qkv.get(), d_out.get(), d_dout.get(), d_lse.get(), d_first.get(), d_len.get(),
                           d, d_dqkv.get(), scratch.get()};
  attention_backward(ba, nullptr);
  sync();
  CHECK(rel_l2(download_bf16(d_out), out_ref) < 1e-2);
  const auto dqkv = download_bf16(d_dqkv);
  CHECK(rel_l2(dqkv, dqkv_ref) < 2e-2);
  // Per part, so a wrong dK or dV cannot hide behind a large dQ.
  for (int part = 0; part < 3; ++part) {
    CAPTURE(part);
    std::vector<float> a, b;
    for (int t = 0; t < T; ++t)
      for (int j = 0; j < H; ++j) {
        a.push_back(dqkv[static_cast<size_t>(t) * 3 * H + part * H + j]);
        b.push_back(dqkv_ref[static_cast<size_t>(t) * 3 * H + part * H + j]);
      }
    CHECK(rel_l2(a, b) < 2e-2);
  }

  // The forward's keep bits for the backward (what CudaModel does with dropout): the same output bit for
  // bit, the same dK and dV bit for bit, dQ to its fp32 atomics' order
  if (p > 0.f && seq_len % 32 == 0) {
    DeviceBuffer<uint32_t> bits(attention_keep_words(shape));
    auto out2 = poisoned<bf16>(static_cast<size_t>(T) * H);
    auto dqkv2 = poisoned<bf16>(static_cast<size_t>(T) * 3 * H);
    AttentionForwardArgs fb = fa;
    fb.out = out2.get();
    fb.keep_bits = bits.get();
    attention_forward(fb, nullptr);
    AttentionBackwardArgs bb = ba;
    bb.out = out2.get();
    bb.dqkv = dqkv2.get();
    bb.keep_bits = bits.get();
    attention_backward(bb, nullptr);
    sync();
    CHECK(out2.download() == d_out.download());
    const auto dqkv_bits = download_bf16(dqkv2);
    CHECK(rel_l2(dqkv_bits, dqkv) < 1e-5);
    size_t kv_differ = 0;
    for (int t = 0; t < T; ++t)
      for (int j = H; j < 3 * H; ++j)
        kv_differ += dqkv_bits[static_cast<size_t>(t) * 3 * H + j] != dqkv[static_cast<size_t>(t) * 3 * H + j];
    CHECK(kv_differ == 0);
  }
}

}  // namespace

TEST_CASE("attention, padded rows (one sequence per row), no dropout") {
  check_attention(128, {{128}, {77}, {1}, {64}}, 2, 0.f, 1);
}

TEST_CASE("attention, padded rows, dropout 0.1") {
  check_attention(128, {{100}, {65}, {3}}, 4, 0.1f, 2);
}

TEST_CASE("attention, packs of up to 3 sequences, seq 512, 16 heads, dropout 0.1") {
  check_attention(512, {{200, 300}, {512}, {129, 1, 255}}, 16, 0.1f, 3);
}
