#include "trainer/cpu/dropout.h"

#include <algorithm>
#include <cstring>

#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

constexpr int kBlocks = 256;  // Philox blocks per batch of lanes

// keep flags of the kPer·nq elements of blocks q0 .. q0+nq-1 (kPer 4: hidden states, 8: attention
// probabilities, dropout_rng.h); the loop over blocks vectorizes (each lane one independent
// Philox4x32-10, 32x32->64 multiplies as vpmuludq).
template <int kPer>
BERT_CPU_CLONES void keep_blocks(const model::DropoutStream& rng, uint64_t q0, int nq, float p, uint8_t* out) {
  uint8_t k[kPer][kBlocks];
  const uint32_t thr16 = model::DropoutStream::drop_threshold16(p);
#pragma omp simd
  for (int i = 0; i < nq; ++i) {
    const model::Philox4 r = rng.block(q0 + static_cast<uint64_t>(i));
    for (int w = 0; w < kPer; ++w)
      k[w][i] = kPer == 4 ? !model::DropoutStream::dropped(r.v[w], p)
                          : ((r.v[w >> 1] >> (16 * (w & 1))) & 0xffffu) >= thr16;
  }
  for (int i = 0; i < nq; ++i)
    for (int w = 0; w < kPer; ++w) out[kPer * i + w] = k[w][i];
}

template <int kPer>
void fill_keep_blocks(const model::DropoutStream& rng, uint64_t first, int count, float p, uint8_t* out) {
  uint8_t buf[kPer * kBlocks];
  const uint64_t end = first + static_cast<uint64_t>(count);
  for (uint64_t e = first; e < end;) {
    const uint64_t q = e / kPer;
    const int nq = static_cast<int>(std::min<uint64_t>(kBlocks, (end + kPer - 1) / kPer - q));
    keep_blocks<kPer>(rng, q, nq, p, buf);
    const uint64_t upto = std::min(end, (q + static_cast<uint64_t>(nq)) * kPer);
    std::memcpy(out, buf + (e % kPer), static_cast<size_t>(upto - e));
    out += upto - e;
    e = upto;
  }
}

}  // namespace

BERT_CPU_CLONES void apply_keep(const float* x, const uint8_t* keep, float scale, float* out, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i] * scale;
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits &= 0u - static_cast<uint32_t>(keep[i] != 0);  // a bit mask: GCC turns `keep ? v : 0` into a branch
    std::memcpy(out + i, &bits, sizeof bits);
  }
}

void fill_keep(const model::DropoutStream& rng, uint64_t first, int count, float p, uint8_t* out) {
  fill_keep_blocks<4>(rng, first, count, p, out);
}

void fill_keep_attention(const model::DropoutStream& rng, uint64_t first, int count, float p, uint8_t* out) {
  fill_keep_blocks<8>(rng, first, count, p, out);
}

void dropout_forward(const float* x, float* y, uint8_t* keep, const int32_t* token_flat, int t, int n,
                     const model::DropoutStream& rng, float p) {
  const float scale = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r) {
    const size_t row = static_cast<size_t>(r) * n;
    const uint64_t base = static_cast<uint64_t>(token_flat[r]) * static_cast<uint64_t>(n);
    if (p <= 0.0f) {
      for (int c = 0; c < n; ++c) keep[row + c] = 1, y[row + c] = x[row + c];
      continue;
    }
    fill_keep(rng, base, n, p, keep + row);
    apply_keep(x + row, keep + row, scale, y + row, static_cast<size_t>(n));
  }
}

void dropout_backward(const float* dy, float* dx, const uint8_t* keep, size_t count, float p) {
  const float scale = 1.0f / (1.0f - p);
  constexpr size_t kChunk = 1 << 14;
  const size_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c) {
    const size_t i = c * kChunk;
    apply_keep(dy + i, keep + i, scale, dx + i, std::min(kChunk, count - i));
  }
}

}  // namespace bert::cpu
