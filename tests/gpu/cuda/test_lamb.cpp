// Fused LAMB (global-norm clipping, device LR schedule, per-tensor trust ratios, bf16 copy) against
// the CPU trainer's bert::optim::Lamb + global_grad_norm + LrSchedule over the tiny model's layout.
#include <cmath>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cuda/lamb.h"
#include "trainer/cuda/lamb_tensors.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"
#include "trainer/optim/lamb.h"
#include "trainer/optim/schedule.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// Every tensor's elements of `v`, in layout order, where v[i] is the flat layout's element first + i.
std::vector<float> tensor_elements(const bert::model::ParamLayout& layout, const std::vector<float>& v, size_t first) {
  std::vector<float> out;
  out.reserve(layout.num_params());
  for (const auto& p : layout.tensors) {
    REQUIRE(p.offset >= first);
    REQUIRE(p.offset - first + p.size <= v.size());
    out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(p.offset - first),
               v.begin() + static_cast<std::ptrdiff_t>(p.offset - first + p.size));
  }
  return out;
}

}  // namespace

TEST_CASE("FusedLamb matches optim::Lamb over 4 steps (clipped and unclipped)") {
  auto cfg = bert::model::bert_config_for_size(bert::model::ModelSize::Tiny);
  cfg.vocab_size = 1001;  // the MLM output bias: a chunk of float4s and a scalar tail
  cfg.max_position = 128;
  const auto layout = bert::model::make_param_layout(cfg);
  std::vector<float> params;
  bert::model::init_params(layout, 42, params);
  REQUIRE(params.size() == layout.total);

  LambHyper h;
  h.beta1 = 0.9f;
  h.beta2 = 0.999f;
  h.epsilon = 1e-6f;
  h.weight_decay = 0.01f;
  h.max_grad_norm = 1.f;
  h.schedule.base_lr = 1e-3;
  h.schedule.warmup_steps = 2;
  h.schedule.start_warmup_step = -1;  // lr is nonzero from the first update
  h.schedule.total_steps = 10;
  const bert::optim::LrSchedule sched = h.schedule;
  bert::optim::Lamb cpu(layout, bert::optim::LambHyper{h.beta1, h.beta2, h.epsilon, h.weight_decay});

  FusedLamb gpu(lamb_tensors(layout), h);
  auto d_w = DeviceBuffer<float>::from(params);
  auto d_m = DeviceBuffer<float>::from(std::vector<float>(layout.total, 0.f));
  auto d_v = DeviceBuffer<float>::from(std::vector<float>(layout.total, 0.f));
  auto d_w16 = poisoned<bf16>(layout.total);
  DeviceBuffer<float> d_g(layout.total);

  std::mt19937_64 gen(7);
  for (int step = 0; step < 4; ++step) {
    CAPTURE(step);
    // Gradient scale alternates: global norm well above 1 (clipped) and below 1 (not clipped).
    const float mag = step % 2 == 0 ? 0.05f : 1e-4f;
    std::vector<float> grads(layout.total, 0.f);
    for (const auto& p : layout.tensors) {
      auto r = random_vec(p.size, gen, -mag, mag);
      std::copy(r.begin(), r.end(), grads.begin() + static_cast<std::ptrdiff_t>(p.offset));
    }
    const std::vector<float> before = params;
    const double norm = bert::optim::global_grad_norm(layout, grads.data());
    cpu.step(params.data(), grads.data(), sched.at(step), bert::optim::clip_factor(norm, 1.0));

    d_g.upload(grads);
    gpu.step(d_w.get(), d_g.get(), d_m.get(), d_v.get(), d_w16.get(), nullptr);
    sync();
    const auto w = d_w.download();
    std::vector<float> delta_gpu(w.size()), delta_cpu(w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      delta_gpu[i] = w[i] - before[i];
      delta_cpu[i] = params[i] - before[i];
    }
    CHECK(rel_l2(delta_gpu, delta_cpu) < 1e-4);
    // optim::Lamb keeps the moments of its run of tensors only (here all of them: from the first
    // tensor's offset to the last one's end, without the layout's trailing alignment gap), so the
    // device moments are compared over every tensor's elements, gaps excluded on both sides.
    CHECK(rel_l2(tensor_elements(layout, d_m.download(), 0), tensor_elements(layout, cpu.m(), cpu.first_element())) <
          1e-5);
    CHECK(rel_l2(tensor_elements(layout, d_v.download(), 0), tensor_elements(layout, cpu.v(), cpu.first_element())) <
          1e-5);
    float norm_gpu = 0, lr_gpu = 0;
    int32_t step_gpu = 0;
    BERT_CUDA_CHECK(cudaMemcpy(&norm_gpu, gpu.device_grad_norm(), sizeof(float), cudaMemcpyDeviceToHost));
    BERT_CUDA_CHECK(cudaMemcpy(&lr_gpu, gpu.device_lr(), sizeof(float), cudaMemcpyDeviceToHost));
    BERT_CUDA_CHECK(cudaMemcpy(&step_gpu, gpu.device_step(), sizeof(int32_t), cudaMemcpyDeviceToHost));
    CHECK(std::abs(norm_gpu - norm) / norm < 1e-5);
    CHECK(std::abs(lr_gpu - sched.at(step)) <= 1e-6 * sched.base_lr);
    CHECK(step_gpu == step + 1);
    // The bf16 compute copy is the rounded master of every tensor element.
    const auto w16 = download_bf16(d_w16);
    size_t wrong = 0;
    for (const auto& p : layout.tensors)
      for (size_t i = p.offset; i < p.offset + p.size; ++i) wrong += w16[i] != round_bf16(w[i]);
    CHECK(wrong == 0);
  }
}
