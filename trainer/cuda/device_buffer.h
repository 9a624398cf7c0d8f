// Owning device allocation (RAII). Sizes are in elements of T.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "trainer/cuda/check.h"

namespace bert::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (n) BERT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~DeviceBuffer() { if (p_) cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (p_) cudaFree(p_);
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  T* get() const { return p_; }
  size_t size() const { return n_; }

  void upload(const std::vector<T>& h) {
    if (h.size() != n_) throw CudaError("DeviceBuffer::upload: size mismatch");
    if (n_) BERT_CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_) BERT_CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  static DeviceBuffer from(const std::vector<T>& h) {
    DeviceBuffer b(h.size());
    b.upload(h);
    return b;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace bert::cuda
