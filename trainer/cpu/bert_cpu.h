// BERT pretraining model on the CPU: forward and backward over a Batch (padded or packed) with the
// parameters in the flat layout of trainer/model/params.h. Real tokens are compacted ([T, hidden],
// sequence by sequence), attention is per sequence, the MLM head runs on the masked rows only and
// NSP on each sequence's first token. Loss = mean MLM cross entropy + mean NSP cross entropy.
// The heads read the last layer's output on those rows only, so the last layer computes its queries,
// attention output and feed-forward on them alone (its keys and values on every row): the same loss
// and gradients with ~70 % of that layer's work saved.
#pragma once
#include <cstdint>
#include <vector>

#include "common/user_error.h"
#include "trainer/cpu/gemm.h"
#include "trainer/data/batch.h"
#include "trainer/model/forward_types.h"
#include "trainer/model/params.h"

namespace bert::cpu {


class BertCpu {
 public:
  // precision (run.precision fp32 or bf16): the math of every product the model computes (gemm.h).
  explicit BertCpu(const model::ParamLayout& layout, MatmulPrecision precision = MatmulPrecision::fp32);
  ~BertCpu();
  BertCpu(const BertCpu&) = delete;
  BertCpu& operator=(const BertCpu&) = delete;

  // Forward pass; keeps the activations for backward(). Throws model::BatchError.
  model::StepStats forward(const data::Batch& batch, const float* params, const model::DropoutContext& dropout);
  // Adds grad_scale · d(loss)/d(params) of the last forward into grads (flat layout). overwrite: sets
  // them instead, as if grads were zero first (a step's first micro-batch: no zeroing pass over the
  // model's gradients, the products write them with beta 0); the gaps between tensors are not touched.
  enum class Grads { add, overwrite };
  void backward(const float* params, float* grads, float grad_scale, Grads mode = Grads::add);
  // Forward without dropout and without keeping what backward needs beyond the logits.
  model::StepStats evaluate(const data::Batch& batch, const float* params);

  // On by default. Off: the last layer computes every row, as the reference model does (the test that
  // both give the same loss and gradients).
  void set_last_layer_head_rows_only(bool on);

  // Of the last forward: [masked, vocab] MLM logits (in masked-token order) and [sequences, 2] NSP logits.
  // backward() overwrites the MLM logits with their gradient.
  const std::vector<float>& mlm_logits() const;
  const std::vector<float>& nsp_logits() const;

 private:
  struct State;
  const model::ParamLayout& layout_;
  MatmulPrecision precision_;
  State* st_;
};

}  // namespace bert::cpu
