#include "trainer/cuda/host_data_parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "trainer/cuda/check.h"

namespace bert::cuda {

void max_over_ranks(const float* gathered, int world, size_t count, float* out) {
  for (size_t i = 0; i < count; ++i) {
    float m = gathered[i];
    for (int r = 1; r < world; ++r) {
      const float v = gathered[static_cast<size_t>(r) * count + i];
      m = std::isnan(m) || std::isnan(v) ? NAN : std::max(m, v);
    }
    out[i] = m;
  }
}

HostDataParallel::HostDataParallel(dist::Collective& coll, size_t grad_floats)
    : coll_(coll), grad_floats_(grad_floats) {
  BERT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_grads_), std::max<size_t>(grad_floats, 1) * sizeof(float)));
  BERT_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  BERT_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
}

HostDataParallel::~HostDataParallel() {
  for (cudaEvent_t e : ready_) cudaEventDestroy(e);
  if (done_) cudaEventDestroy(done_);
  if (copy_stream_) cudaStreamDestroy(copy_stream_);
  if (host_amax_) cudaFreeHost(host_amax_);
  if (host_grads_) cudaFreeHost(host_grads_);
}

void HostDataParallel::grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute) {
  if (count == 0) return;
  if (offset + count > grad_floats_) throw CudaError("HostDataParallel: a gradient range past the buffer");
  if (grads_ && grads != grads_) throw CudaError("HostDataParallel: gradient ranges of two buffers");
  if (!collecting_) {  // the first range of a step (a replayed graph queues the copies of the captured ones)
    lo_ = offset;
    hi_ = offset + count;
    collecting_ = true;
  }
  grads_ = grads;
  lo_ = std::min(lo_, offset);
  hi_ = std::max(hi_, offset + count);
  if (next_ready_ == ready_.size()) {
    cudaEvent_t e;
    BERT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    ready_.push_back(e);
  }
  cudaEvent_t e = ready_[next_ready_++];
  BERT_CUDA_CHECK(cudaEventRecord(e, compute));
  BERT_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, e, 0));
  BERT_CUDA_CHECK(cudaMemcpyAsync(host_grads_ + offset, grads + offset, count * sizeof(float), cudaMemcpyDeviceToHost,
                                  copy_stream_));
}

void HostDataParallel::finish(cudaStream_t compute) {
  if (collecting_) {
    BERT_CUDA_CHECK(cudaEventRecord(done_, copy_stream_));
    BERT_CUDA_CHECK(cudaStreamWaitEvent(compute, done_, 0));
  }
  next_ready_ = 0;
}

void HostDataParallel::allreduce_max(float* data, size_t count, cudaStream_t stream) {
  const size_t need = static_cast<size_t>(coll_.size()) * count;
  if (need > amax_capacity_) {  // the first (eager) steps: never under capture
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    BERT_CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone)
      throw CudaError("HostDataParallel::allreduce_max: first called under graph capture");
    if (host_amax_) BERT_CUDA_CHECK(cudaFreeHost(host_amax_));
    host_amax_ = nullptr;
    BERT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_amax_), need * sizeof(float)));
    amax_capacity_ = need;
  }
  amax_ = data;
  amax_count_ = count;
  // into this rank's row; exchange() zeroes the others before the sum
  BERT_CUDA_CHECK(cudaMemcpyAsync(host_amax_ + static_cast<size_t>(coll_.rank()) * count, data, count * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream));
}

void HostDataParallel::exchange(cudaStream_t compute) {
  BERT_CUDA_CHECK(cudaStreamSynchronize(compute));  // after finish(): every range's copy too
  const int world = coll_.size();
  collecting_ = false;
  if (grads_) {  // what the step's backward reported (when captured: at capture; the graph copies it again)
    float* g = host_grads_ + lo_;
    const size_t n = hi_ - lo_;
    coll_.allreduce_sum(g, n);  // the same bits on every rank (shm: summed in local-rank order)
    const float w = static_cast<float>(world);
    for (size_t i = 0; i < n; ++i) g[i] /= w;  // as ncclAvg: the sum, then divided
    BERT_CUDA_CHECK(cudaMemcpyAsync(grads_ + lo_, g, n * sizeof(float), cudaMemcpyHostToDevice, compute));
  }
  if (amax_) {
    // An all-gather as a sum: every other rank's row is zero here, and x + 0 is x (inf and NaN too).
    const size_t n = amax_count_, mine = static_cast<size_t>(coll_.rank()) * n;
    std::vector<float> local(host_amax_ + mine, host_amax_ + mine + n);
    std::fill(host_amax_, host_amax_ + static_cast<size_t>(world) * n, 0.f);
    std::copy(local.begin(), local.end(), host_amax_ + mine);
    coll_.allreduce_sum(host_amax_, static_cast<size_t>(world) * n);
    max_over_ranks(host_amax_, world, n, local.data());
    std::copy(local.begin(), local.end(), host_amax_);  // row 0 now holds the maximum: copied back from there
    BERT_CUDA_CHECK(cudaMemcpyAsync(amax_, host_amax_, n * sizeof(float), cudaMemcpyHostToDevice, compute));
  }
}

}  // namespace bert::cuda
