// Data parallelism over the flat fp32 gradient buffer: the interface the train step drives (DataParallel),
// and its NCCL implementation for ranks on distinct GPUs (host_data_parallel.h: ranks sharing a GPU).
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

// What the train step asks of the ranks' communication, in this order in a step: grads_ready() for each
// range backward reports, finish(), allreduce_max() (FP8 amaxes), then, where host_exchange() says so,
// exchange() between the step's two halves (the compute stream idle: outside any graph), then LAMB.
class DataParallel {
 public:
  virtual ~DataParallel() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Average grads[offset, offset+count) across ranks once the compute stream reaches this point.
  virtual void grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute) = 0;
  // The compute stream waits for every reduction queued since the last finish().
  virtual void finish(cudaStream_t compute) = 0;
  // Maximum in place (FP8 amaxes: every rank then computes the same scales).
  virtual void allreduce_max(float* data, size_t count, cudaStream_t stream) = 0;
  // Whether the reductions run on the host, in exchange(), rather than on the stream.
  virtual bool host_exchange() const { return false; }
  // Host reductions: waits for the compute stream, reduces what the step queued, queues the results'
  // copies back on it. Called on the thread that runs the step, between its two halves.
  virtual void exchange(cudaStream_t) {}
};

class NcclDataParallel final : public DataParallel {
 public:
  // The caller has selected the rank's device (cudaSetDevice) already.
  NcclDataParallel(const dist::ProcessInfo& p, dist::KVStore& kv, const std::string& tag = "grads");
  ~NcclDataParallel() override;
  NcclDataParallel(const NcclDataParallel&) = delete;
  NcclDataParallel& operator=(const NcclDataParallel&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute) override;
  void finish(cudaStream_t compute) override;
  void allreduce_max(float* data, size_t count, cudaStream_t stream) override;

 private:
  struct Impl;
  Impl* impl_;
  int rank_ = 0, size_ = 1;
};

}  // namespace bert::cuda
