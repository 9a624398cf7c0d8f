// BERT pretraining model on the CPU: forward and backward over a Batch (padded or packed) with the
// parameters in the flat layout of trainer/model/params.h. Real tokens are compacted ([T, hidden],
// sequence by sequence), attention is per sequence, the MLM head runs on the masked rows only and
// NSP on each sequence's first token. Loss = mean MLM cross entropy + mean NSP cross entropy.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "trainer/data/batch.h"
#include "trainer/model/params.h"

namespace bert::cpu {

// A batch that does not fit the model (token id >= vocab, position >= max_position, ...).
struct BatchError : std::runtime_error { using std::runtime_error::runtime_error; };

struct DropoutContext {
  bool enabled = false;   // training: true; eval and reference tests: false
  uint64_t seed = 0;
  uint32_t rank = 0;
  uint32_t micro_step = 0;  // see dropout_rng.h
};

struct StepStats {
  double loss = 0, mlm_loss = 0, nsp_loss = 0;  // means over this batch
  int64_t masked = 0, mlm_correct = 0;          // MLM accuracy counts
  int64_t sequences = 0, nsp_correct = 0;
};

class BertCpu {
 public:
  explicit BertCpu(const model::ParamLayout& layout);
  ~BertCpu();
  BertCpu(const BertCpu&) = delete;
  BertCpu& operator=(const BertCpu&) = delete;

  // Forward pass; keeps the activations for backward(). Throws BatchError.
  StepStats forward(const data::Batch& batch, const float* params, const DropoutContext& dropout);
  // Adds grad_scale · d(loss)/d(params) of the last forward into grads (flat layout).
  void backward(const float* params, float* grads, float grad_scale);
  // Forward without dropout and without keeping what backward needs beyond the logits.
  StepStats evaluate(const data::Batch& batch, const float* params);

  // Of the last forward: [masked, vocab] MLM logits (in masked-token order) and [sequences, 2] NSP logits.
  // backward() overwrites the MLM logits with their gradient.
  const std::vector<float>& mlm_logits() const;
  const std::vector<float>& nsp_logits() const;

 private:
  struct State;
  const model::ParamLayout& layout_;
  State* st_;
};

}  // namespace bert::cpu
