#include "trainer/cuda/fp8_scaling.h"

#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/model/fp8_scaling.h"

namespace bert::cuda {
namespace {

__global__ void update_kernel(float* history, float* scale, float* scale_inv, int inv_stride, const float* scaled_max,
                              int count, int len) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= count) return;
  model::fp8_update(history + t, len, static_cast<size_t>(count), scale + t, scale_inv + t * inv_stride,
                    scaled_max[t]);
}

}  // namespace

Fp8Scaling::Fp8Scaling(const std::vector<model::Fp8Format>& formats, const Fp8Options& opt)
    : count_(static_cast<int>(formats.size())), len_(opt.amax_history) {
  if (len_ < 1) throw CudaError("Fp8Scaling: the amax history needs at least one step");
  for (model::Fp8Format f : formats) scaled_max_host_.push_back(model::fp8_scaled_max(f, opt.margin));
  history_ = DeviceBuffer<float>::from(std::vector<float>(static_cast<size_t>(count_) * len_, 0.f));
  scale_ = DeviceBuffer<float>::from(std::vector<float>(formats.size(), 1.f));
  scale_inv_ = DeviceBuffer<float>::from(std::vector<float>(formats.size() * kScaleInvStride, 1.f));
  scaled_max_ = DeviceBuffer<float>::from(scaled_max_host_);
}

void Fp8Scaling::update(cudaStream_t stream) {
  if (count_ == 0) return;
  update_kernel<<<dev::ceil_div(static_cast<size_t>(count_), 128), 128, 0, stream>>>(
      history_.get(), scale_.get(), scale_inv_.get(), kScaleInvStride, scaled_max_.get(), count_, len_);
  BERT_CUDA_CHECK_LAUNCH();
}

std::vector<float> Fp8Scaling::scale_invs() const {
  const std::vector<float> strided = scale_inv_.download();
  std::vector<float> out(static_cast<size_t>(count_));
  for (size_t t = 0; t < out.size(); ++t) out[t] = strided[t * kScaleInvStride];
  return out;
}

}  // namespace bert::cuda
