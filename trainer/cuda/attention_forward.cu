// Attention forward, FlashAttention-2 style register tiles: the block's work is attention_forward_tile
// (attention_forward_tile.h, also run on the host by tests/unit/cuda against models of the PTX
// instructions), here with the device's warp operations (mma_bf16.cuh).
// 128 registers at most (launch bounds: 4 blocks of 4 warps per SM; 46,080 B of shared memory each).
#include "trainer/cuda/attention_common.cuh"
#include "trainer/cuda/attention_forward_tile.h"
#include "trainer/cuda/mma_bf16.cuh"

namespace bert::cuda {
namespace {

using namespace attn;

__global__ void __launch_bounds__(kWarps * 32, 4) attention_forward_kernel(AttentionForwardArgs a) {
  __shared__ __align__(128) ForwardShared<bf16> sh;
  ForwardTile<bf16> tile;
  set_sequence_tile(tile, a);
  if (tile.row0 >= tile.len) return;
  tile.tokens = a.shape.tokens;
  tile.out = a.out;
  tile.lse = a.lse;
  tile.keep_bits = head_keep_bits(a, a.keep_bits, tile.head);
  mma::DeviceWarp w;
  attention_forward_tile(w, tile, sh, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
}

}  // namespace

size_t attention_keep_words(const AttentionShape& s) {
  return s.seq_len % 32 ? 0 : static_cast<size_t>(s.heads) * s.tokens * (s.seq_len / 32);
}

void attention_forward(const AttentionForwardArgs& a, cudaStream_t stream) {
  check_shape(a.shape);
  check_keep_bits(a.shape, a.keep_bits);
  if (a.shape.tokens == 0) return;
  // Rows of tokens outside every sequence (padding) must read as zeros downstream.
  BERT_CUDA_CHECK(cudaMemsetAsync(a.out, 0, static_cast<size_t>(a.shape.tokens) * a.shape.heads * D * sizeof(bf16), stream));
  if (a.shape.num_sequences == 0 || a.shape.max_seqlen == 0) return;
  static bool carveout = false;
  prefer_shared_memory(attention_forward_kernel, carveout);
  const dim3 grid(dev::ceil_div(a.shape.max_seqlen, kTile), a.shape.heads, a.shape.num_sequences);
  attention_forward_kernel<<<grid, kWarps * 32, 0, stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
