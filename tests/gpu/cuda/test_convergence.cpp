// Tiny BERT trained on the synthetic (learnable) dataset of trainer/data follows the CPU trainer's
// trajectory on the GPU: the same batches, initial weights, dropout streams and LAMB schedule on
// both backends (CPU: BertCpu + optim::Lamb; GPU: CudaTrainStep replaying its CUDA graph). Both must
// learn and agree: measured for the CPU on the build machine, the train loss goes 7.650 -> 7.498 over
// the 300 steps and eval MLM accuracy 0.001 -> 0.019 (300 steps is early training for this grammar;
// the point is the shared trajectory). Checks: loss falls by > 0.05 and accuracy > 0.01 on both,
// final losses within 3%, accuracies within 0.03 absolute. Prints where its time goes (data, CPU
// trajectory, GPU trajectory): the CPU side runs on gpu_main.cpp's threads, as the trainer's, unless
// the stage computed it beforehand (convergence_case.h: cuda_convergence_cpu.json beside the binary).
#include <chrono>

#include "tests/gpu/cuda/convergence_case.h"
#include "tests/gpu/cuda/gpu_test.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

TEST_CASE("tiny BERT on synthetic data: GPU training tracks the CPU trainer") {
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  };
  const ConvergenceCase c = make_convergence_case();
  const double data_s = seconds(t0);

  const auto t_cpu = std::chrono::steady_clock::now();
  CpuTrajectory cpu;
  const std::string staged = staged_trajectory_path();
  const bool from_stage = read_trajectory(staged, &cpu);
  if (from_stage)
    MESSAGE("CPU trajectory from " << staged << " (computed when the stage was made)");
  else
    cpu = cpu_trajectory(c);
  const double cpu_s = seconds(t_cpu);

  // GPU trajectory
  const auto t_gpu = std::chrono::steady_clock::now();
  CudaTrainStep gpu(c.layout, c.lim, c.opt);
  gpu.set_params(c.params);
  double gpu_first = 0, gpu_last = 0;
  for (int i = 0; i < kConvSteps; ++i) {
    gpu.step(c.train[static_cast<size_t>(i)], static_cast<uint32_t>(i));
    if (i == 0 || i == kConvSteps - 1) (i == 0 ? gpu_first : gpu_last) = gpu.stats().loss;
  }
  int64_t gpu_correct = 0, gpu_masked = 0;
  for (const auto& b : c.eval) {
    gpu.model().load_batch(b);
    gpu.model().forward(bert::model::DropoutContext{});
    const auto st = gpu.stats();
    gpu_correct += st.mlm_correct;
    gpu_masked += st.masked;
  }
  const double gpu_s = seconds(t_gpu);
  MESSAGE("time: data " << data_s << " s, CPU " << kConvSteps << " steps + eval " << cpu_s
                        << (from_stage ? " s (read)" : " s") << ", GPU " << kConvSteps << " steps + eval " << gpu_s
                        << " s");
  REQUIRE(cpu.masked == gpu_masked);
  const double cpu_acc = static_cast<double>(cpu.correct) / cpu.masked, gpu_acc = static_cast<double>(gpu_correct) / gpu_masked;
  MESSAGE("train loss CPU " << cpu.first << " -> " << cpu.last << ", GPU " << gpu_first << " -> " << gpu_last
                            << "; eval MLM accuracy CPU " << cpu_acc << ", GPU " << gpu_acc);
  CHECK(gpu.graph_captured());
  CHECK(cpu.last < cpu.first - 0.05);
  CHECK(gpu_last < gpu_first - 0.05);
  CHECK(cpu_acc > 0.01);
  CHECK(gpu_acc > 0.01);
  CHECK(std::abs(gpu_first - cpu.first) < 0.02 * cpu.first);
  CHECK(std::abs(gpu_last - cpu.last) < 0.03 * cpu.last);
  CHECK(std::abs(gpu_acc - cpu_acc) < 0.03);
}
