// Data parallelism through the trainer's host collective (trainer/comm: shared memory on one node), for
// ranks that share a GPU: NCCL refuses two ranks on one device, so on a one-GPU machine this is how data
// parallelism runs (gradient_transport.h chooses). Each gradient range backward reports is copied to
// pinned host memory on a stream of its own as soon as it is final (overlapped with the rest of the
// backward); exchange(), between the step's two halves on the step's own thread, waits for the copies,
// averages over the ranks with the collective (the same bits on every rank), reduces the FP8 amaxes
// (maximum) and queues the copies back before LAMB. Far slower than NCCL (every gradient crosses the host
// twice a step): a path for correctness on one GPU, not for speed.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "trainer/comm/comm.h"
#include "trainer/cuda/data_parallel.h"

namespace bert::cuda {

class HostDataParallel final : public DataParallel {
 public:
  // grad_floats: the flat gradient buffer's length (its pinned host copy is allocated here).
  HostDataParallel(dist::Collective& coll, size_t grad_floats);
  ~HostDataParallel() override;
  HostDataParallel(const HostDataParallel&) = delete;
  HostDataParallel& operator=(const HostDataParallel&) = delete;

  int rank() const override { return coll_.rank(); }
  int size() const override { return coll_.size(); }
  void grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute) override;
  void finish(cudaStream_t compute) override;
  void allreduce_max(float* data, size_t count, cudaStream_t stream) override;
  bool host_exchange() const override { return true; }
  void exchange(cudaStream_t compute) override;

 private:
  dist::Collective& coll_;
  size_t grad_floats_;
  float* host_grads_ = nullptr;  // pinned
  float* grads_ = nullptr;       // the device buffer the ranges belong to
  size_t lo_ = 0, hi_ = 0;       // the reported ranges' span (they tile it)
  float* host_amax_ = nullptr;   // pinned, amax_capacity_ floats
  size_t amax_capacity_ = 0;
  float* amax_ = nullptr;        // the device amaxes (allreduce_max), amax_count_ of them; kept across
                                 // steps, as the ranges are: a replayed graph queues their copies again
  size_t amax_count_ = 0;
  cudaStream_t copy_stream_ = nullptr;
  cudaEvent_t done_ = nullptr;
  std::vector<cudaEvent_t> ready_;  // one per range in flight, reused across steps
  size_t next_ready_ = 0;
  bool collecting_ = false;  // between a step's first reported range and its exchange()
};

// The element-wise maximum over `world` ranks' rows of `gathered` (world x count, rank-major) into
// out[count]; a NaN anywhere stays NaN (the scaling recipe sees it).
void max_over_ranks(const float* gathered, int world, size_t count, float* out);

}  // namespace bert::cuda
