// The attention backward kernel's block code (trainer/cuda/attention_backward_tile.h, the same template
// the CUDA kernel instantiates) run on the host over the PTX warp model (ptx_warp_model.h), after the
// forward tile on the same model, against the CPU reference cpu::attention_backward_ref: dQ, dK, dV per
// part, the rows it must leave alone, and, through one-hot dO probes (dV[key][dim] = P[64b + dim][key] ·
// keep / (1-p)), every dropout keep flag the backward applies per (query, key) == the CPU's (and so ==
// the forward's). Around the tile: Dq = rowsum(dO · O) and the fp32 dQ → bf16 cast, as the wrapper's
// two small kernels do. Needs no GPU (and no CUDA toolkit).
#include "tests/unit/cuda/attention_tile_fixture.h"
#include "trainer/cuda/attention_backward_tile.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

struct BackwardResult {
  std::vector<uint16_t> dqkv;  // [tokens, 3 * hd] bf16
};

// Every block of the backward grid (sequence, head, 64-key tile) on the warp model.
BackwardResult run_backward_model(const Layout& L, const std::vector<uint16_t>& qkv, const std::vector<uint16_t>& dout,
                                  const ForwardResult& fwd, const DropoutSpec& d) {
  const int H = L.hd(), T = L.tokens();
  // Dq[head, tok] = sum_d dO · O (attention_dq_dot_kernel)
  std::vector<float> dvec(static_cast<size_t>(L.heads) * T, 0.f);
  for (int tok = 0; tok < T; ++tok)
    for (int h = 0; h < L.heads; ++h) {
      float acc = 0.f;
      for (int e = 0; e < attn::D; ++e) {
        const size_t i = static_cast<size_t>(tok) * H + h * attn::D + e;
        const uint16_t o = fwd.out[i] == kPoison ? uint16_t{0} : fwd.out[i];  // the device memsets padding rows
        acc += bf16_float(o) * bf16_float(dout[i]);
      }
      dvec[static_cast<size_t>(h) * T + tok] = acc;
    }
  BackwardResult r;
  const size_t ld = 3 * static_cast<size_t>(H);
  r.dqkv.assign(static_cast<size_t>(T) * ld, kPoison);
  std::vector<float> dq_acc(static_cast<size_t>(T) * H, 0.f);
  auto sh = std::make_unique<AlignedShared<attn::BackwardShared<uint16_t>>>();
  for (int s = 0; s < L.num_seqs(); ++s)
    for (int h = 0; h < L.heads; ++h)
      for (int k0 = 0; k0 < L.lengths[s]; k0 += attn::kTile) {
        const size_t s0 = static_cast<size_t>(L.first_flat[s]);
        attn::BackwardTile<uint16_t> tile;
        static_cast<attn::SequenceTile<uint16_t>&>(tile) = sequence_tile(L, qkv, s, h, k0, d);
        tile.dout = dout.data() + s0 * H + h * attn::D;
        tile.lse = fwd.lse.data() + static_cast<size_t>(h) * T + s0;
        tile.dvec = dvec.data() + static_cast<size_t>(h) * T + s0;
        tile.dq_acc = dq_acc.data();
        tile.dqkv = r.dqkv.data();
        if (!fwd.keep_bits.empty())  // the forward's keep bits: the backward draws nothing
          tile.keep_bits = fwd.keep_bits.data() + static_cast<size_t>(h) * T * (L.seq_len / 32);
        INFO("backward block: sequence " << s << ", head " << h << ", k0 " << k0);
        run_block(*sh, [&](WarpModel& w, int tid) { attn::attention_backward_tile(w, tile, sh->s, tid, attn::kWarps * 32); });
      }
  // dQ rows of sequence tokens (attention_dq_store_kernel casts every row; padding rows stay 0 there)
  L.for_each_token([&](int, int, size_t flat, size_t) {
    for (int j = 0; j < H; ++j) r.dqkv[flat * ld + j] = bf16_rn(dq_acc[flat * H + j]);
  });
  return r;
}

struct Grads {
  std::vector<float> dq, dk, dv;  // compact
};

Grads run_backward_reference(const Reference& ref, const Layout& L, const std::vector<uint16_t>& dout, float p) {
  const int H = L.hd();
  std::vector<float> dctx(ref.q.size());
  L.for_each_token([&](int, int, size_t flat, size_t c) {
    for (int j = 0; j < H; ++j) dctx[c * H + j] = bf16_float(dout[flat * H + j]);
  });
  Grads g{std::vector<float>(ref.q.size()), std::vector<float>(ref.q.size()), std::vector<float>(ref.q.size())};
  bert::cpu::attention_backward_ref(ref.shape, ref.q.data(), ref.k.data(), ref.v.data(), ref.probs.data(),
                                    ref.keep.data(), dctx.data(), g.dq.data(), g.dk.data(), g.dv.data(), p);
  return g;
}

void check_backward(const Layout& L, float p, uint64_t seed, bool keep_bits = false) {
  CAPTURE(L.seq_len);
  CAPTURE(L.heads);
  CAPTURE(p);
  const DropoutSpec d{p, {seed * 5 + 1, 3, 7, 10}};
  const int H = L.hd();
  const auto qkv = random_bf16(static_cast<size_t>(L.tokens()) * 3 * H, seed, 2.f);
  const auto dout = random_bf16(static_cast<size_t>(L.tokens()) * H, seed + 1000, 1.f);
  const ForwardResult fwd = run_forward_model(L, qkv, d);
  const BackwardResult r = run_backward_model(L, qkv, dout, fwd, d);
  if (keep_bits)  // the stored flags are the drawn ones: the same gradients, bit for bit
    CHECK(run_backward_model(L, qkv, dout, run_forward_model(L, qkv, d, true), d).dqkv == r.dqkv);
  const Reference ref = run_forward_reference(L, qkv, d);
  const Grads g = run_backward_reference(ref, L, dout, p);
  const std::vector<float>* parts[3] = {&g.dq, &g.dk, &g.dv};
  for (int part = 0; part < 3; ++part) {
    CAPTURE(part);
    ErrorStats e;
    L.for_each_token([&](int, int, size_t flat, size_t c) {
      for (int j = 0; j < H; ++j) e.add(bf16_float(r.dqkv[flat * 3 * H + part * H + j]), (*parts[part])[c * H + j]);
    });
    // bf16 P, dS and outputs against an fp32 reference: ~1e-2; a fragment mapping error is O(1)
    CHECK(e.rel_l2() < 1.5e-2);
    CHECK(e.worst < 0.06 * e.ref_max);
  }
  for (int tok = 0; tok < L.tokens(); ++tok) {
    if (L.in_sequence(tok)) continue;
    INFO("padding token " << tok);
    for (int j = 0; j < 3 * H; ++j) REQUIRE(r.dqkv[static_cast<size_t>(tok) * 3 * H + j] == kPoison);
  }
}

// dO one-hot on query block b (dO[q][dim] = q == 64b + dim): dV[key][dim] = P[64b + dim][key] · keep ·
// 1/(1-p), so every keep flag the backward draws is visible per (query, key).
void check_backward_keeps(const Layout& L, float p, uint64_t seed, bool keep_bits = false) {
  CAPTURE(L.seq_len);
  CAPTURE(p);
  const DropoutSpec d{p, {seed * 13 + 5, 0, 11, 1}};
  const int H = L.hd();
  const auto qkv = random_bf16(static_cast<size_t>(L.tokens()) * 3 * H, seed, 1.f);
  const ForwardResult fwd = run_forward_model(L, qkv, d, keep_bits);
  const Reference ref = run_forward_reference(L, qkv, d);
  for (int b = 0; b * attn::kTile < L.max_len(); ++b) {
    CAPTURE(b);
    std::vector<uint16_t> dout(static_cast<size_t>(L.tokens()) * H, 0);
    L.for_each_token([&](int, int i, size_t flat, size_t) {
      for (int h = 0; h < L.heads; ++h)
        for (int dim = 0; dim < attn::D; ++dim)
          dout[flat * H + h * attn::D + dim] = bf16_rn(i == b * attn::kTile + dim ? 1.f : 0.f);
    });
    const BackwardResult r = run_backward_model(L, qkv, dout, fwd, d);
    ProbeTally tally;
    for (int s = 0; s < L.num_seqs(); ++s)
      for (int h = 0; h < L.heads; ++h)
        for (int key = 0; key < L.lengths[s]; ++key)
          for (int dim = 0; dim < attn::D; ++dim)
            tally.add(ref, d, s, h, b * attn::kTile + dim, key, L.lengths[s],
                      bf16_float(r.dqkv[static_cast<size_t>(L.first_flat[s] + key) * 3 * H + 2 * H + h * attn::D + dim]),
                      1.2e-2f);
    tally.check();
  }
}

}  // namespace

TEST_CASE("attention backward tile on the PTX model: padded rows, no dropout") {
  check_backward(Layout(128, 2, {{128}, {77}, {1}, {64}}), 0.f, 11);
}

TEST_CASE("attention backward tile on the PTX model: packs, dropout 0.1, several tiles") {
  check_backward(Layout(512, 1, {{200, 300, 12}}), 0.1f, 12);
  check_backward(Layout(128, 2, {{100, 28}, {65, 3, 60}}), 0.1f, 13);
}

TEST_CASE("attention backward tile on the PTX model: seq_len % 8 != 0 (dropout drawn per element)") {
  check_backward(Layout(126, 1, {{126}, {50, 70}}), 0.1f, 14);
  check_backward_keeps(Layout(132, 1, {{132}, {61, 70}}), 0.1f, 20);  // % 4 == 0: still per element
}

TEST_CASE("attention backward tile on the PTX model: the forward's keep bits instead of drawing") {
  check_backward(Layout(512, 1, {{200, 300, 12}}), 0.1f, 17, /*keep_bits=*/true);
  check_backward(Layout(128, 2, {{100, 28}, {65, 3, 60}, {96}}), 0.1f, 18, true);
  check_backward_keeps(Layout(128, 2, {{100, 28}, {65, 3, 60}}), 0.1f, 19, true);
}

TEST_CASE("attention backward tile on the PTX model: every keep flag == the CPU's (== the forward's)") {
  check_backward_keeps(Layout(128, 2, {{100, 28}, {65, 3, 60}}), 0.1f, 15);
  check_backward_keeps(Layout(130, 1, {{130}, {47, 66}}), 0.25f, 16);
}
