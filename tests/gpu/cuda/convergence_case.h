// The case of cuda_convergence (test_convergence.cpp): tiny BERT on the synthetic (learnable) dataset,
// its batches, initial weights, dropout streams and LAMB schedule, and the CPU trainer's trajectory over
// them (BertCpu + optim::Lamb). scripts/bench-gpu stage runs cuda_convergence_cpu_reference, which
// writes that trajectory next to the staged test binary, so the device call does not spend its seconds
// on it; without the file (a build dir) the test computes it itself.
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dataset/grammar.h"
#include "dataset/synth.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/lamb.h"
#include "trainer/cuda/train_step.h"
#include "trainer/data/batch_assembly.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/optim/lamb.h"

namespace bert::cuda::test {

constexpr int kConvRows = 32, kConvSeq = 128, kConvSteps = 300, kConvVocab = 1024;

struct ConvergenceCase {
  model::ParamLayout layout;
  std::vector<float> params;
  std::vector<data::Batch> train, eval;
  TrainStepOptions opt;
  CudaModelLimits lim;
};

inline std::vector<data::Batch> convergence_batches(const data::SequenceSet& set, int count) {
  std::vector<data::Batch> out(static_cast<size_t>(count));
  for (int b = 0; b < count; ++b) {
    std::vector<data::RowRef> rows;
    for (int r = 0; r < kConvRows; ++r) rows.push_back({&set, static_cast<int64_t>(b) * kConvRows + r});
    data::assemble_rows(rows.data(), kConvRows, kConvSeq, out[static_cast<size_t>(b)]);
  }
  return out;
}

inline ConvergenceCase make_convergence_case() {
  data::SynthOptions so;
  so.vocab_size = kConvVocab;
  so.seq_len = kConvSeq;
  const data::Grammar grammar(kConvVocab, so.topics, so.seed);
  const auto train = data::synth_sequences(so, grammar, 0, 0, static_cast<int64_t>(kConvSteps) * kConvRows);
  const auto eval = data::synth_sequences(so, grammar, data::kEvalStream, 0, 4 * kConvRows);
  auto cfg = model::bert_config_for_size(model::ModelSize::Tiny);
  cfg.vocab_size = kConvVocab;
  cfg.max_position = kConvSeq;
  ConvergenceCase c{model::make_param_layout(cfg), {}, convergence_batches(train, kConvSteps),
                    convergence_batches(eval, 4), {}, {}};
  model::init_params(c.layout, 5, c.params);
  c.opt.lamb.schedule.base_lr = 4e-3;
  c.opt.lamb.schedule.warmup_steps = 20;
  c.opt.lamb.schedule.total_steps = kConvSteps;
  c.opt.dropout_seed = 9;
  c.lim = CudaModelLimits{kConvRows, kConvSeq, kConvRows, 0};
  for (const auto& b : c.train) c.lim.max_masked = std::max(c.lim.max_masked, b.num_masked());
  for (const auto& b : c.eval) c.lim.max_masked = std::max(c.lim.max_masked, b.num_masked());
  return c;
}

// First and last train loss, eval MLM correct / masked after the last step.
struct CpuTrajectory {
  double first = 0, last = 0;
  int64_t correct = 0, masked = 0;
};

inline CpuTrajectory cpu_trajectory(const ConvergenceCase& c) {
  cpu::BertCpu cpu(c.layout);
  optim::Lamb lamb(c.layout, optim::LambHyper{c.opt.lamb.beta1, c.opt.lamb.beta2, c.opt.lamb.epsilon,
                                              c.opt.lamb.weight_decay});
  std::vector<float> params = c.params, grads(c.layout.total);
  CpuTrajectory t;
  for (int i = 0; i < kConvSteps; ++i) {
    std::fill(grads.begin(), grads.end(), 0.f);
    const auto st = cpu.forward(c.train[static_cast<size_t>(i)], params.data(),
                                model::DropoutContext{true, c.opt.dropout_seed, 0, static_cast<uint32_t>(i)});
    cpu.backward(params.data(), grads.data(), 1.f);
    const double norm = optim::global_grad_norm(c.layout, grads.data());
    lamb.step(params.data(), grads.data(), lamb_learning_rate(c.opt.lamb, i), optim::clip_factor(norm, 1.0));
    (i == 0 ? t.first : t.last) = st.loss;
  }
  for (const auto& b : c.eval) {
    const auto st = cpu.evaluate(b, params.data());
    t.correct += st.mlm_correct;
    t.masked += st.masked;
  }
  return t;
}

// Where the stage keeps the trajectory: beside the running test binary.
inline std::string staged_trajectory_path() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "cuda_convergence_cpu.json").string();
}

inline void write_trajectory(const CpuTrajectory& t, const std::string& path) {
  std::ofstream f(path);
  f << nlohmann::json{{"first", t.first}, {"last", t.last}, {"correct", t.correct}, {"masked", t.masked}}.dump()
    << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

// The staged trajectory, or false when there is none.
inline bool read_trajectory(const std::string& path, CpuTrajectory* t) {
  std::ifstream f(path);
  if (!f) return false;
  const nlohmann::json j = nlohmann::json::parse(f);
  *t = CpuTrajectory{j.at("first").get<double>(), j.at("last").get<double>(), j.at("correct").get<int64_t>(),
                     j.at("masked").get<int64_t>()};
  return true;
}

}  // namespace bert::cuda::test
