// Shared by the attention tile tests: a batch layout (rows of packed sequences, the Batch's
// seq_first_token / seq_lengths), random bf16 inputs, the forward kernel's grid run block by block on
// the PTX warp model, and the CPU reference (cpu::attention_forward_ref / attention_backward_ref) on
// the same bf16 values in the compact layout.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tests/unit/cuda/attention_layout.h"
#include "tests/unit/cuda/ptx_warp_model.h"
#include "trainer/cpu/attention.h"
#include "trainer/cuda/attention_forward_tile.h"

namespace bert::cuda::test {

namespace attn = bert::cuda::attn;

constexpr uint16_t kPoison = 0x7fc1;  // a NaN: what the kernels must not write keeps it

inline std::vector<uint16_t> random_bf16(size_t n, uint64_t seed, float range) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-range, range);
  std::vector<uint16_t> x(n);
  for (auto& v : x) v = bf16_rn(u(g));
  return x;
}

// The block's shared memory, aligned as the kernels' __align__(128).
template <class S>
struct alignas(128) AlignedShared {
  S s;
};

// The kernels' set_sequence_tile for block (sequence s, head h, rows from row0).
inline attn::SequenceTile<uint16_t> sequence_tile(const Layout& L, const std::vector<uint16_t>& qkv, int s, int h,
                                                  int row0, const DropoutSpec& d) {
  attn::SequenceTile<uint16_t> t;
  t.ld = 3 * static_cast<size_t>(L.hd());
  t.hd = L.hd();
  t.heads = L.heads;
  t.seq_len = L.seq_len;
  t.s0 = L.first_flat[s];
  t.len = L.lengths[s];
  t.head = h;
  t.row0 = row0;
  t.q = qkv.data() + static_cast<size_t>(t.s0) * t.ld + h * attn::D;
  t.dropout = d;
  return t;
}

// One block of kWarps * 32 threads on the warp model over shared memory *sh (filled with 0xff first:
// stale shared memory must not matter); body(WarpModel&, tid). Fails on any protocol error. The blocks
// alternate where cp.async copies land (at the wait, at the issue): both kinds of race show.
inline CopyLanding next_landing() {
  static int blocks = 0;  // every block of every test, in turn
  return blocks++ % 2 ? CopyLanding::at_issue : CopyLanding::at_wait;
}

template <class S, class Body>
void run_block(AlignedShared<S>& sh, Body body) {
  std::memset(static_cast<void*>(&sh), 0xff, sizeof(sh));
  BlockModel block(attn::kWarps * 32, &sh.s, sizeof(sh.s), next_landing());
  block.run(body);
  for (const auto& e : block.errors()) FAIL_CHECK(e);
  REQUIRE(block.errors().empty());
}

constexpr uint32_t kPoisonWord = 0xA5A5A5A5u;  // keep words the forward must not write

struct ForwardResult {
  std::vector<uint16_t> out;  // [tokens, hd] bf16
  std::vector<float> lse;     // [heads, tokens]
  std::vector<uint32_t> keep_bits;  // [heads, tokens, seq_len / 32] when asked for, else empty
};

// Every block of the forward grid (sequence, head, 64-query tile), one after another, on the warp model.
// keep_bits: the forward also writes its keep flags (attention.h's layout; seq_len % 32 == 0).
inline ForwardResult run_forward_model(const Layout& L, const std::vector<uint16_t>& qkv, const DropoutSpec& d,
                                       bool keep_bits = false) {
  ForwardResult r;
  r.out.assign(static_cast<size_t>(L.tokens()) * L.hd(), kPoison);
  r.lse.assign(static_cast<size_t>(L.heads) * L.tokens(), NAN);
  const size_t head_words = static_cast<size_t>(L.tokens()) * (L.seq_len / 32);
  if (keep_bits) r.keep_bits.assign(L.heads * head_words, kPoisonWord);
  auto sh = std::make_unique<AlignedShared<attn::ForwardShared<uint16_t>>>();
  for (int s = 0; s < L.num_seqs(); ++s)
    for (int h = 0; h < L.heads; ++h)
      for (int q0 = 0; q0 < L.lengths[s]; q0 += attn::kTile) {
        attn::ForwardTile<uint16_t> tile;
        static_cast<attn::SequenceTile<uint16_t>&>(tile) = sequence_tile(L, qkv, s, h, q0, d);
        tile.tokens = L.tokens();
        tile.out = r.out.data();
        tile.lse = r.lse.data();
        tile.keep_bits = keep_bits ? r.keep_bits.data() + h * head_words : nullptr;
        INFO("forward block: sequence " << s << ", head " << h << ", q0 " << q0);
        run_block(*sh, [&](WarpModel& w, int tid) { attn::attention_forward_tile(w, tile, sh->s, tid, attn::kWarps * 32); });
      }
  return r;
}

struct Reference {
  std::vector<float> q, k, v;  // compact [start[S], hd], the bf16 inputs widened
  std::vector<float> ctx;      // compact
  std::vector<float> probs;    // undropped softmax, per (sequence, head) len x len blocks
  std::vector<uint8_t> keep;
  std::vector<int64_t> prob_off;
  bert::cpu::AttentionShape shape;
  size_t prob_index(int s, int h, int query, int key, int len) const {
    return static_cast<size_t>(prob_off[s] + (static_cast<int64_t>(h) * len + query) * len + key);
  }
};

inline Reference run_forward_reference(const Layout& L, const std::vector<uint16_t>& qkv, const DropoutSpec& d) {
  const int H = L.hd(), S = L.num_seqs();
  Reference ref;
  ref.q.resize(static_cast<size_t>(L.start[S]) * H);
  ref.k.resize(ref.q.size());
  ref.v.resize(ref.q.size());
  L.for_each_token([&](int, int, size_t flat, size_t c) {
    for (int j = 0; j < H; ++j) {
      ref.q[c * H + j] = bf16_float(qkv[flat * 3 * H + j]);
      ref.k[c * H + j] = bf16_float(qkv[flat * 3 * H + H + j]);
      ref.v[c * H + j] = bf16_float(qkv[flat * 3 * H + 2 * H + j]);
    }
  });
  ref.prob_off = bert::cpu::attention_prob_offsets(L.start.data(), S, L.heads);
  ref.shape.heads = L.heads;
  ref.shape.head_dim = attn::D;
  ref.shape.seq_len = L.seq_len;
  ref.shape.start = L.start.data();
  ref.shape.first_flat = L.first_flat.data();
  ref.shape.num_seqs = S;
  ref.shape.prob_offset = ref.prob_off.data();
  ref.ctx.resize(ref.q.size());
  ref.probs.resize(static_cast<size_t>(ref.prob_off[S]));
  ref.keep.resize(ref.probs.size());
  bert::cpu::attention_forward_ref(ref.shape, ref.q.data(), ref.k.data(), ref.v.data(), ref.probs.data(),
                                   ref.keep.data(), ref.ctx.data(), d.rng, d.p);
  return ref;
}

// A one-hot probe's reading of one (query, key) probability after dropout against the CPU's.
struct ProbeTally {
  int wrong_keep = 0, wrong_p = 0, checked = 0;
  // got: what the kernel output shows for (sequence s, head h, query, key); tol: relative
  void add(const Reference& ref, const DropoutSpec& d, int s, int h, int query, int key, int len, float got, float tol) {
    if (query >= len || key >= len) {
      wrong_p += got != 0.f;
      return;
    }
    const size_t e = ref.prob_index(s, h, query, key, len);
    const bool kept = ref.keep[e] != 0;
    wrong_keep += kept != (got != 0.f);
    if (kept) wrong_p += std::abs(got - ref.probs[e] * d.scale()) > tol * ref.probs[e] * d.scale() + 1e-30f;
    ++checked;
  }
  void check() const {
    CHECK(checked > 0);
    CHECK(wrong_keep == 0);
    CHECK(wrong_p == 0);
  }
};

// Relative L2 error and the largest absolute error over pairs (got, want).
struct ErrorStats {
  double err2 = 0, ref2 = 0, worst = 0, ref_max = 0;
  void add(double got, double want) {
    err2 += (got - want) * (got - want);
    ref2 += want * want;
    worst = std::max(worst, std::abs(got - want));
    ref_max = std::max(ref_max, std::abs(want));
  }
  double rel_l2() const { return std::sqrt(err2 / ref2); }
};

}  // namespace bert::cuda::test
