#include "trainer/cuda/check.h"
#include "trainer/cuda/column_sum.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/kernel_attributes.h"
#include "trainer/cuda/layernorm.h"

#include <algorithm>

namespace bert::cuda {
namespace {

using dev::bf16;
constexpr int kWarps = 8;        // rows in flight per block (one warp per row)
constexpr int kChunks = 4;       // 8-wide chunks per lane: hidden <= 4 * 8 * 32 = 1024
constexpr int kMaxBlocks = 512;  // fixed cap so the gamma/beta partials have a device-independent size

int grid_for(int rows) { return std::min<int>(kMaxBlocks, std::max(1, (rows + kWarps - 1) / kWarps)); }

// The keep flags of elements off .. off + 7 as bits 0..7: the forward's byte, or drawn (two Philox calls).
__device__ __forceinline__ uint32_t chunk_keeps(const DropoutSpec& d, const uint8_t* keep_in, size_t off) {
  if (keep_in) return keep_in[off >> 3];
  bool k[8];
  d.keep4(off, k);
  d.keep4(off + 4, k + 4);
  uint32_t bits = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) bits |= uint32_t(k[j]) << j;
  return bits;
}

// z = dropout(x) + residual for the lane's chunks; chunks past `hidden` are left untouched. With dropout,
// the keep flags of chunk k are bits 8k.. of *keeps (read from keep_in, else drawn; written to keep_out).
__device__ __forceinline__ void load_z(const bf16* x, const bf16* res, const DropoutSpec& d, float scale, int row,
                                       int hidden, int lane, float v[kChunks][8], const uint8_t* keep_in,
                                       uint8_t* keep_out, uint32_t* keeps) {
  *keeps = 0;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    const int c = (k * 32 + lane) * 8;
    if (c >= hidden) continue;
    const size_t off = static_cast<size_t>(row) * hidden + c;
    dev::load8(x + off, v[k]);
    if (d.p > 0.f) {
      const uint32_t kb = chunk_keeps(d, keep_in, off);
      if (keep_out) keep_out[off >> 3] = static_cast<uint8_t>(kb);
      *keeps |= kb << (8 * k);
#pragma unroll
      for (int j = 0; j < 8; ++j) v[k][j] = (kb >> j) & 1u ? v[k][j] * scale : 0.f;
    }
    if (res) {
      float r[8];
      dev::load8(res + off, r);
#pragma unroll
      for (int j = 0; j < 8; ++j) v[k][j] += r[j];
    }
  }
}

__global__ void __launch_bounds__(kWarps * 32) layernorm_forward_kernel(LayerNormForwardArgs a) {
  a.dropout = a.dropout.resolved();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float scale = a.dropout.scale();
  for (int row = blockIdx.x * kWarps + warp; row < a.rows; row += gridDim.x * kWarps) {
    float v[kChunks][8];
    uint32_t keeps;
    load_z(a.x, a.residual, a.dropout, scale, row, a.hidden, lane, v, nullptr, a.keep_out, &keeps);
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
      if ((k * 32 + lane) * 8 < a.hidden)
#pragma unroll
        for (int j = 0; j < 8; ++j) s += v[k][j];
    const float mean = dev::warp_sum(s) / a.hidden;
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
      if ((k * 32 + lane) * 8 < a.hidden)
#pragma unroll
        for (int j = 0; j < 8; ++j) q += (v[k][j] - mean) * (v[k][j] - mean);
    const float rstd = rsqrtf(dev::warp_sum(q) / a.hidden + a.eps);
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      const int c = (k * 32 + lane) * 8;
      if (c >= a.hidden) continue;
      float g[8], b[8], out[8];
      dev::load8(a.gamma + c, g);
      dev::load8(a.beta + c, b);
#pragma unroll
      for (int j = 0; j < 8; ++j) out[j] = (v[k][j] - mean) * rstd * g[j] + b[j];
      dev::store8(a.y + static_cast<size_t>(row) * a.hidden + c, out);
    }
    if (lane == 0) {
      a.mean[row] = mean;
      a.rstd[row] = rstd;
    }
  }
}

// Per block: dz/dx rows, and this block's partial sums of dgamma/dbeta written to scratch. Each warp
// sums its rows' dgamma/dbeta terms into its own shared-memory row (2 x kWarps x hidden floats,
// dynamic): in registers they took 64 per thread and held the kernel at 190 registers, one block
// per SM. Same order of additions as in registers, so the same bits.
__global__ void __launch_bounds__(kWarps * 32, 2) layernorm_backward_kernel(LayerNormBackwardArgs a) {
  extern __shared__ float ln_smem[];
  a.dropout = a.dropout.resolved();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float scale = a.dropout.scale();
  float* accg = ln_smem + static_cast<size_t>(warp) * a.hidden;             // this warp's dgamma sums
  float* accb = ln_smem + static_cast<size_t>(kWarps + warp) * a.hidden;    // this warp's dbeta sums
  for (int c = lane; c < a.hidden; c += 32) accg[c] = accb[c] = 0.f;
  __syncwarp();
  for (int row = blockIdx.x * kWarps + warp; row < a.rows; row += gridDim.x * kWarps) {
    float v[kChunks][8], dy[kChunks][8];
    uint32_t keeps;  // the same flags again for dx
    load_z(a.x, a.residual, a.dropout, scale, row, a.hidden, lane, v, a.keep, nullptr, &keeps);
    const float mean = a.mean[row], rstd = a.rstd[row];
    float s1 = 0.f, s2 = 0.f;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      const int c = (k * 32 + lane) * 8;
      if (c >= a.hidden) continue;
      float g[8], sg[8], sb[8];
      dev::load8(a.dy + static_cast<size_t>(row) * a.hidden + c, dy[k]);
      dev::load8(a.gamma + c, g);
      dev::load8(accg + c, sg);  // 32-byte aligned: hidden % 8 == 0
      dev::load8(accb + c, sb);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float xhat = (v[k][j] - mean) * rstd;
        const float gx = dy[k][j] * g[j];
        s1 += gx;
        s2 += gx * xhat;
        sg[j] += dy[k][j] * xhat;
        sb[j] += dy[k][j];
        v[k][j] = xhat;
        dy[k][j] = gx;
      }
      dev::store8(accg + c, sg);
      dev::store8(accb + c, sb);
    }
    s1 = dev::warp_sum(s1) / a.hidden;
    s2 = dev::warp_sum(s2) / a.hidden;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      const int c = (k * 32 + lane) * 8;
      if (c >= a.hidden) continue;
      const size_t off = static_cast<size_t>(row) * a.hidden + c;
      float dz[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) dz[j] = rstd * (dy[k][j] - s1 - v[k][j] * s2);
      if (a.dz) dev::store8(a.dz + off, dz);
      if (a.dx) {
        if (a.dropout.p > 0.f)
#pragma unroll
          for (int j = 0; j < 8; ++j) dz[j] = (keeps >> (8 * k + j)) & 1u ? dz[j] * scale : 0.f;
        dev::store8(a.dx + off, dz);
      }
    }
  }
  // Combine the warps' column sums in a fixed order (deterministic), then write the partial row.
  __syncthreads();
  float* pg = a.scratch + static_cast<size_t>(blockIdx.x) * a.hidden;
  float* pb = a.scratch + static_cast<size_t>(gridDim.x + blockIdx.x) * a.hidden;
  for (int c = threadIdx.x; c < a.hidden; c += blockDim.x) {
    float sg = 0.f, sb = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      sg += ln_smem[static_cast<size_t>(w) * a.hidden + c];
      sb += ln_smem[static_cast<size_t>(kWarps + w) * a.hidden + c];
    }
    pg[c] = sg;
    pb[c] = sb;
  }
}

size_t backward_smem_bytes(int hidden) { return 2 * static_cast<size_t>(kWarps) * hidden * sizeof(float); }

void check_hidden(int hidden) {
  if (hidden <= 0 || hidden % 8 != 0 || hidden > kChunks * 8 * 32)
    throw CudaError("layernorm: hidden size must be a multiple of 8 and at most 1024, got " + std::to_string(hidden));
}

}  // namespace

void layernorm_forward(const LayerNormForwardArgs& a, cudaStream_t stream) {
  check_hidden(a.hidden);
  if (a.rows <= 0) return;
  layernorm_forward_kernel<<<grid_for(a.rows), kWarps * 32, 0, stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
}

size_t layernorm_backward_scratch_floats(int rows, int hidden) {
  return 2 * static_cast<size_t>(grid_for(rows)) * static_cast<size_t>(hidden);
}

void layernorm_backward(const LayerNormBackwardArgs& a, cudaStream_t stream) {
  check_hidden(a.hidden);
  if (a.rows <= 0) return;
  const int grid = grid_for(a.rows);
  static bool attribute_set = false, carveout = false;  // per process; the attributes are per function
  if (!attribute_set) {
    BERT_CUDA_CHECK(cudaFuncSetAttribute(layernorm_backward_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(backward_smem_bytes(kChunks * 8 * 32))));
    attribute_set = true;
  }
  prefer_shared_memory(layernorm_backward_kernel, carveout);  // 2 blocks of 64 KB an SM
  layernorm_backward_kernel<<<grid, kWarps * 32, backward_smem_bytes(a.hidden), stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
  column_sum_add(a.scratch, grid, a.hidden, a.dgamma, stream);
  column_sum_add(a.scratch + static_cast<size_t>(grid) * a.hidden, grid, a.hidden, a.dbeta, stream);
}

}  // namespace bert::cuda
