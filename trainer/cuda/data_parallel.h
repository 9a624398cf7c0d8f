// Data parallelism with NCCL over the flat fp32 gradient buffer.
//   - The NCCL unique id travels through the bootstrap KV store (trainer/comm/comm.h): rank 0 puts
//     it (hex) under "nccl_unique_id/<tag>", fence, every rank gets it.
//   - Bucketed allreduce overlapped with the backward pass: CudaModel::backward reports each range
//     of the flat buffer as soon as the kernels that produce its final gradients are queued (heads,
//     then layers top-down, then embeddings); grads_ready() records an event on the compute stream,
//     makes the communication stream wait for it and queues an ncclAllReduce (average) there, so
//     the reduction of layer l runs while layer l-1's backward computes.
//   - finish() makes the compute stream wait for every queued reduction (before LAMB).
// LAMB's global-norm clipping then acts on the averaged gradients (clip after allreduce, allowed
// by the rules indefinitely). No host synchronisation anywhere: capturable in a CUDA graph.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "trainer/comm/comm.h"

namespace bert::cuda {

class NcclDataParallel {
 public:
  // The caller has selected the rank's device (cudaSetDevice) already.
  NcclDataParallel(const dist::ProcessInfo& p, dist::KVStore& kv, const std::string& tag = "grads");
  ~NcclDataParallel();
  NcclDataParallel(const NcclDataParallel&) = delete;
  NcclDataParallel& operator=(const NcclDataParallel&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Average grads[offset, offset+count) across ranks once the compute stream reaches this point.
  void grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute);
  // The compute stream waits for every reduction queued since the last finish().
  void finish(cudaStream_t compute);
  // Sum in place on `stream` (losses, accuracy counts).
  void allreduce_sum(float* data, size_t count, cudaStream_t stream);
  // Maximum in place on `stream` (FP8 amaxes: every rank then computes the same scales).
  void allreduce_max(float* data, size_t count, cudaStream_t stream);

 private:
  struct Impl;
  Impl* impl_;
  int rank_ = 0, size_ = 1;
};

}  // namespace bert::cuda
