// The attention forward kernel's block code (trainer/cuda/attention_forward_tile.h, the same template
// the CUDA kernel instantiates) run on the host over models of ldmatrix / mma.sync / shuffles built from
// the PTX ISA's fragment layouts (ptx_warp_model.h), against the CPU reference cpu::attention_forward_ref:
// output O = softmax(QKᵀ/8)·dropout·V per element, the log-sum-exp the backward reads, the rows it must
// leave alone, and, through one-hot V probes that make O show P column by column, every probability
// and every dropout keep flag per (query, key) == the CPU's. Padded rows, packs, several key tiles,
// seq_len % 8 != 0 (the per-element dropout path). Needs no GPU (and no CUDA toolkit).
#include "tests/unit/cuda/attention_tile_fixture.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// O and the log-sum-exp on random data, rows outside sequences untouched.
void check_forward(const Layout& L, float p, uint64_t seed) {
  CAPTURE(L.seq_len);
  CAPTURE(L.heads);
  CAPTURE(p);
  const DropoutSpec d{p, {seed * 7 + 3, 1, 5, 4}};
  const auto qkv = random_bf16(static_cast<size_t>(L.tokens()) * 3 * L.hd(), seed, 2.f);
  const ForwardResult r = run_forward_model(L, qkv, d);
  const Reference ref = run_forward_reference(L, qkv, d);
  const int H = L.hd();

  ErrorStats out;
  for (int s = 0; s < L.num_seqs(); ++s)
    for (int i = 0; i < L.lengths[s]; ++i) {
      const size_t flat = static_cast<size_t>(L.first_flat[s] + i), c = static_cast<size_t>(L.start[s] + i);
      for (int j = 0; j < H; ++j) out.add(bf16_float(r.out[flat * H + j]), ref.ctx[c * H + j]);
      // lse = log sum_k exp(q·k / 8) over the sequence's keys, in double from the same bf16 inputs
      for (int h = 0; h < L.heads; ++h) {
        std::vector<double> sc(static_cast<size_t>(L.lengths[s]));
        double mx = -INFINITY;
        for (int k = 0; k < L.lengths[s]; ++k) {
          double dot = 0;
          const size_t kt = static_cast<size_t>(L.first_flat[s] + k);
          for (int e = 0; e < attn::D; ++e)
            dot += static_cast<double>(bf16_float(qkv[flat * 3 * H + h * attn::D + e])) *
                   bf16_float(qkv[kt * 3 * H + H + h * attn::D + e]);
          sc[static_cast<size_t>(k)] = dot / 8;
          mx = std::max(mx, dot / 8);
        }
        double sum = 0;
        for (double x : sc) sum += std::exp(x - mx);
        const float lse = r.lse[static_cast<size_t>(h) * L.tokens() + flat];
        INFO("sequence " << s << " query " << i << " head " << h);
        CHECK(std::abs(lse - (mx + std::log(sum))) < 1e-4 * (1 + std::abs(mx)));
      }
    }
  // bf16 P (2^-9 relative) and bf16 O (2^-9): a fragment mapping error is O(1)
  CHECK(out.rel_l2() < 4e-3);
  CHECK(out.worst < 2e-2);
  for (int tok = 0; tok < L.tokens(); ++tok) {
    if (L.in_sequence(tok)) continue;
    INFO("padding token " << tok);
    for (int j = 0; j < H; ++j) REQUIRE(r.out[static_cast<size_t>(tok) * H + j] == kPoison);
    for (int h = 0; h < L.heads; ++h) REQUIRE(std::isnan(r.lse[static_cast<size_t>(h) * L.tokens() + tok]));
  }
}

// V one-hot on key block b (V[key][dim] = key == 64b + dim): O[q][dim] = P[q][64b + dim] · keep ·
// 1/(1-p), so every probability and keep flag the kernel applied is visible, per (query, key).
void check_probabilities(const Layout& L, float p, uint64_t seed) {
  CAPTURE(L.seq_len);
  CAPTURE(p);
  const DropoutSpec d{p, {seed * 11 + 1, 2, 9, 7}};
  auto qkv = random_bf16(static_cast<size_t>(L.tokens()) * 3 * L.hd(), seed, 1.f);
  const int H = L.hd();
  for (int b = 0; b * attn::kTile < L.max_len(); ++b) {
    CAPTURE(b);
    for (int s = 0; s < L.num_seqs(); ++s)
      for (int k = 0; k < L.lengths[s]; ++k)
        for (int h = 0; h < L.heads; ++h)
          for (int dim = 0; dim < attn::D; ++dim)
            qkv[static_cast<size_t>(L.first_flat[s] + k) * 3 * H + 2 * H + h * attn::D + dim] =
                bf16_rn(k == b * attn::kTile + dim ? 1.f : 0.f);
    const ForwardResult r = run_forward_model(L, qkv, d);
    const Reference ref = run_forward_reference(L, qkv, d);
    ProbeTally tally;
    for (int s = 0; s < L.num_seqs(); ++s)
      for (int h = 0; h < L.heads; ++h)
        for (int i = 0; i < L.lengths[s]; ++i)
          for (int dim = 0; dim < attn::D; ++dim)
            tally.add(ref, d, s, h, i, b * attn::kTile + dim, L.lengths[s],
                      bf16_float(r.out[static_cast<size_t>(L.first_flat[s] + i) * H + h * attn::D + dim]), 8e-3f);
    tally.check();
  }
}

// With keep_bits, the forward writes every keep flag of (query, key < len) == the CPU's, the same output
// as without, and no word of a query outside every sequence.
void check_keep_bits(const Layout& L, float p, uint64_t seed) {
  CAPTURE(L.seq_len);
  CAPTURE(p);
  const DropoutSpec d{p, {seed * 3 + 2, 1, 4, 13}};
  const auto qkv = random_bf16(static_cast<size_t>(L.tokens()) * 3 * L.hd(), seed, 2.f);
  const ForwardResult r = run_forward_model(L, qkv, d, /*keep_bits=*/true);
  const ForwardResult plain = run_forward_model(L, qkv, d);
  const Reference ref = run_forward_reference(L, qkv, d);
  CHECK(r.out == plain.out);
  const size_t wpr = static_cast<size_t>(L.seq_len / 32);
  int wrong = 0, checked = 0;
  for (int s = 0; s < L.num_seqs(); ++s)
    for (int h = 0; h < L.heads; ++h)
      for (int i = 0; i < L.lengths[s]; ++i)
        for (int k = 0; k < L.lengths[s]; ++k) {
          const size_t tok = static_cast<size_t>(L.first_flat[s] + i);
          const uint32_t word = r.keep_bits[(static_cast<size_t>(h) * L.tokens() + tok) * wpr + k / 32];
          wrong += ((word >> (k % 32)) & 1u) != ref.keep[ref.prob_index(s, h, i, k, L.lengths[s])];
          ++checked;
        }
  CHECK(checked > 0);
  CHECK(wrong == 0);
  for (int tok = 0; tok < L.tokens(); ++tok) {
    if (L.in_sequence(tok)) continue;
    INFO("padding token " << tok);
    for (int h = 0; h < L.heads; ++h)
      for (size_t w = 0; w < wpr; ++w)
        REQUIRE(r.keep_bits[(static_cast<size_t>(h) * L.tokens() + tok) * wpr + w] == kPoisonWord);
  }
}

}  // namespace

TEST_CASE("attention forward tile on the PTX model: keep bits for the backward == the CPU's keep flags") {
  check_keep_bits(Layout(128, 2, {{100, 28}, {65, 3, 60}, {96}}), 0.1f, 7);
  check_keep_bits(Layout(512, 1, {{200, 300, 12}}), 0.25f, 8);
}

TEST_CASE("attention forward tile on the PTX model: padded rows, no dropout") {
  check_forward(Layout(128, 2, {{128}, {77}, {1}, {64}}), 0.f, 1);
}

TEST_CASE("attention forward tile on the PTX model: packs, dropout 0.1, several key tiles") {
  check_forward(Layout(512, 1, {{200, 300, 12}}), 0.1f, 2);
  check_forward(Layout(128, 2, {{100, 28}, {65, 3, 60}}), 0.1f, 3);
}

TEST_CASE("attention forward tile on the PTX model: seq_len % 8 != 0 (dropout drawn per element)") {
  check_forward(Layout(126, 1, {{126}, {50, 70}}), 0.1f, 4);
  check_forward(Layout(132, 1, {{132}, {61, 70}}), 0.1f, 9);  // % 4 == 0: still per element
}

TEST_CASE("attention forward tile on the PTX model: every probability and keep flag == the CPU's") {
  check_probabilities(Layout(128, 2, {{100, 28}, {65, 3, 60}}), 0.1f, 5);
  check_probabilities(Layout(130, 1, {{130}, {47, 66}}), 0.25f, 6);
}
