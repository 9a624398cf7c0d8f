// Pinned, double-buffered host staging for host-to-device copies queued on a stream without waiting
// for them: the host fills one slot while the copies queued from the other may still be pending
// behind the previous step; a slot is refilled only after the copies queued from it last time have
// run (its event). So loading batch n+1 never waits for step n, only (rarely) for step n-1's copies.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <initializer_list>

#include "trainer/cuda/check.h"

namespace bert::cuda {

class HostStaging {
 public:
  explicit HostStaging(size_t bytes) : bytes_(bytes) {
    for (Slot& s : slots_) {
      BERT_CUDA_CHECK(cudaMallocHost(&s.data, bytes_ ? bytes_ : 1));
      BERT_CUDA_CHECK(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming));
    }
  }
  ~HostStaging() {
    for (Slot& s : slots_) {
      if (s.recorded) cudaEventSynchronize(s.copied);
      if (s.copied) cudaEventDestroy(s.copied);
      if (s.data) cudaFreeHost(s.data);
    }
  }
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  // Starts filling the next slot (waits for the copies queued from it last time).
  void begin() {
    cur_ = (cur_ + 1) % 2;
    Slot& s = slots_[cur_];
    if (s.recorded) BERT_CUDA_CHECK(cudaEventSynchronize(s.copied));
    s.recorded = false;
    used_ = 0;
  }
  // Stages `count` elements from src and queues their copy to dst on `stream`.
  template <typename T>
  void copy(T* dst, const T* src, size_t count, cudaStream_t stream) {
    if (count == 0) return;
    used_ = (used_ + 15) / 16 * 16;
    const size_t n = count * sizeof(T);
    if (used_ + n > bytes_) throw CudaError("HostStaging: more data than the staging was sized for");
    char* at = slots_[cur_].data + used_;
    std::memcpy(at, src, n);
    BERT_CUDA_CHECK(cudaMemcpyAsync(dst, at, n, cudaMemcpyHostToDevice, stream));
    used_ += n;
  }
  // Marks the end of this slot's copies on `stream`.
  void end(cudaStream_t stream) {
    Slot& s = slots_[cur_];
    BERT_CUDA_CHECK(cudaEventRecord(s.copied, stream));
    s.recorded = true;
  }
  // Bytes a slot needs for arrays of these byte sizes (with the 16-byte alignment of copy()).
  static size_t bytes_for(std::initializer_list<size_t> array_bytes) {
    size_t total = 0;
    for (size_t b : array_bytes) total += (b + 15) / 16 * 16;
    return total;
  }

 private:
  struct Slot {
    char* data = nullptr;
    cudaEvent_t copied = nullptr;
    bool recorded = false;
  };
  size_t bytes_;
  Slot slots_[2];
  int cur_ = 1;
  size_t used_ = 0;
};

}  // namespace bert::cuda
