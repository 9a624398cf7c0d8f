// Tiny BERT trained on the synthetic (learnable) dataset of trainer/data follows the CPU trainer's
// trajectory on the GPU: the same batches, initial weights, dropout streams and LAMB schedule on
// both backends (CPU: BertCpu + optim::Lamb; GPU: CudaTrainStep replaying its CUDA graph). Both must
// learn and agree: measured for the CPU on the build machine, the train loss goes 7.650 -> 7.498 over
// the 300 steps and eval MLM accuracy 0.001 -> 0.019 (300 steps is early training for this grammar;
// the point is the shared trajectory). Checks: loss falls by > 0.05 and accuracy > 0.01 on both,
// final losses within 3%, accuracies within 0.03 absolute. Prints where its time goes (data, CPU
// trajectory, GPU trajectory): the CPU side runs on gpu_main.cpp's threads, as the trainer's.
#include <algorithm>
#include <chrono>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cuda/train_step.h"
#include "trainer/data/batch_assembly.h"
#include "dataset/grammar.h"
#include "dataset/synth.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/optim/lamb.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

constexpr int kRows = 32, kSeq = 128, kSteps = 300, kVocab = 1024;

std::vector<bert::data::Batch> batches_of(const bert::data::SequenceSet& set, int count) {
  std::vector<bert::data::Batch> out(static_cast<size_t>(count));
  for (int b = 0; b < count; ++b) {
    std::vector<bert::data::RowRef> rows;
    for (int r = 0; r < kRows; ++r) rows.push_back({&set, static_cast<int64_t>(b) * kRows + r});
    bert::data::assemble_rows(rows.data(), kRows, kSeq, out[static_cast<size_t>(b)]);
  }
  return out;
}

}  // namespace

TEST_CASE("tiny BERT on synthetic data: GPU training tracks the CPU trainer") {
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  };
  bert::data::SynthOptions so;
  so.vocab_size = kVocab;
  so.seq_len = kSeq;
  const bert::data::Grammar grammar(kVocab, so.topics, so.seed);
  const auto train = bert::data::synth_sequences(so, grammar, 0, 0, static_cast<int64_t>(kSteps) * kRows);
  const auto eval = bert::data::synth_sequences(so, grammar, bert::data::kEvalStream, 0, 4 * kRows);
  const auto train_batches = batches_of(train, kSteps);
  const auto eval_batches = batches_of(eval, 4);

  auto cfg = bert::model::bert_config_for_size("tiny");
  cfg.vocab_size = kVocab;
  cfg.max_position = kSeq;
  const auto layout = bert::model::make_param_layout(cfg);
  std::vector<float> params;
  bert::model::init_params(layout, 5, params);

  TrainStepOptions opt;
  opt.lamb.schedule.base_lr = 4e-3;
  opt.lamb.schedule.warmup_steps = 20;
  opt.lamb.schedule.total_steps = kSteps;
  opt.dropout_seed = 9;
  CudaModelLimits lim{kRows, kSeq, kRows, 0};
  for (const auto& b : train_batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());
  for (const auto& b : eval_batches) lim.max_masked = std::max(lim.max_masked, b.num_masked());

  const double data_s = seconds(t0);

  // CPU trajectory
  const auto t_cpu = std::chrono::steady_clock::now();
  bert::cpu::BertCpu cpu(layout);
  bert::optim::Lamb lamb(layout, bert::optim::LambHyper{opt.lamb.beta1, opt.lamb.beta2, opt.lamb.epsilon,
                                                        opt.lamb.weight_decay});
  std::vector<float> cparams = params, grads(layout.total);
  double cpu_first = 0, cpu_last = 0;
  for (int i = 0; i < kSteps; ++i) {
    std::fill(grads.begin(), grads.end(), 0.f);
    const auto st = cpu.forward(train_batches[static_cast<size_t>(i)], cparams.data(),
                                bert::model::DropoutContext{true, opt.dropout_seed, 0, static_cast<uint32_t>(i)});
    cpu.backward(cparams.data(), grads.data(), 1.f);
    const double norm = bert::optim::global_grad_norm(layout, grads.data());
    lamb.step(cparams.data(), grads.data(), lamb_learning_rate(opt.lamb, i), bert::optim::clip_factor(norm, 1.0));
    (i == 0 ? cpu_first : cpu_last) = st.loss;
  }
  int64_t cpu_correct = 0, cpu_masked = 0;
  for (const auto& b : eval_batches) {
    const auto st = cpu.evaluate(b, cparams.data());
    cpu_correct += st.mlm_correct;
    cpu_masked += st.masked;
  }

  const double cpu_s = seconds(t_cpu);

  // GPU trajectory
  const auto t_gpu = std::chrono::steady_clock::now();
  CudaTrainStep gpu(layout, lim, opt);
  gpu.set_params(params);
  double gpu_first = 0, gpu_last = 0;
  for (int i = 0; i < kSteps; ++i) {
    gpu.step(train_batches[static_cast<size_t>(i)], static_cast<uint32_t>(i));
    if (i == 0 || i == kSteps - 1) (i == 0 ? gpu_first : gpu_last) = gpu.stats().loss;
  }
  int64_t gpu_correct = 0, gpu_masked = 0;
  for (const auto& b : eval_batches) {
    gpu.model().load_batch(b);
    gpu.model().forward(bert::model::DropoutContext{});
    const auto st = gpu.stats();
    gpu_correct += st.mlm_correct;
    gpu_masked += st.masked;
  }
  const double gpu_s = seconds(t_gpu);
  MESSAGE("time: data " << data_s << " s, CPU " << kSteps << " steps + eval " << cpu_s << " s, GPU " << kSteps
                        << " steps + eval " << gpu_s << " s");
  REQUIRE(cpu_masked == gpu_masked);
  const double cpu_acc = static_cast<double>(cpu_correct) / cpu_masked, gpu_acc = static_cast<double>(gpu_correct) / gpu_masked;
  MESSAGE("train loss CPU " << cpu_first << " -> " << cpu_last << ", GPU " << gpu_first << " -> " << gpu_last
                            << "; eval MLM accuracy CPU " << cpu_acc << ", GPU " << gpu_acc);
  CHECK(gpu.graph_captured());
  CHECK(cpu_last < cpu_first - 0.05);
  CHECK(gpu_last < gpu_first - 0.05);
  CHECK(cpu_acc > 0.01);
  CHECK(gpu_acc > 0.01);
  CHECK(std::abs(gpu_first - cpu_first) < 0.02 * cpu_first);
  CHECK(std::abs(gpu_last - cpu_last) < 0.03 * cpu_last);
  CHECK(std::abs(gpu_acc - cpu_acc) < 0.03);
}
