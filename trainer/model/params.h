// The parameter layout: every BERT weight as a named view (its TF checkpoint name and TF shape) into
// ONE flat fp32 buffer. Gradients, LAMB moments and the allreduce use the same layout, so one offset
// addresses a tensor in all of them. The CUDA backend mirrors this layout exactly.
//
// Order = TF checkpoint table order (embeddings, layer_0..L-1, pooler, cls/predictions, cls/seq_relationship).
// Each tensor starts at a multiple of kParamAlign floats; the gaps are zero and never updated.
// Shapes are TF shapes: dense kernels are [in, out] row-major (y = x·K + b), word_embeddings is
// [vocab, hidden] (also the tied MLM decoder), seq_relationship/output_weights is [2, hidden].
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "trainer/model/config.h"

namespace bert::model {

inline constexpr size_t kParamAlign = 64;  // floats (256 bytes)

struct ParamInfo {
  std::string name;           // e.g. "bert/encoder/layer_0/attention/self/query/kernel"
  std::vector<int> shape;     // TF shape
  size_t offset = 0;          // into the flat buffer, in floats
  size_t size = 0;            // elements
  bool no_decay = false;      // LayerNorm / bias: no weight decay and no LAMB trust ratio
  bool is_matrix = false;     // kernel / embedding / output_weights: truncated-normal init
  bool is_gamma = false;      // LayerNorm gamma: init 1
};

// Offsets of one encoder layer's tensors.
struct LayerOffsets {
  size_t q_w, q_b, k_w, k_b, v_w, v_b;   // [H,H], [H]
  size_t ao_w, ao_b, ao_ln_g, ao_ln_b;   // attention/output/dense [H,H], LayerNorm
  size_t i_w, i_b;                       // intermediate/dense [H,I], [I]
  size_t o_w, o_b, o_ln_g, o_ln_b;       // output/dense [I,H], LayerNorm
};

struct ParamLayout {
  BertConfig config;
  std::vector<ParamInfo> tensors;
  size_t total = 0;  // floats in the flat buffer (with alignment gaps)

  size_t word_emb, pos_emb, type_emb, emb_ln_g, emb_ln_b;
  std::vector<LayerOffsets> layer;
  size_t pool_w, pool_b;
  size_t mlm_w, mlm_b, mlm_ln_g, mlm_ln_b, mlm_out_bias;
  size_t nsp_w, nsp_b;  // [2,H] ([out,in], as TF stores it), [2]

  // nullptr when absent.
  const ParamInfo* find(const std::string& name) const;
  size_t num_params() const;  // real elements, without gaps
};

ParamLayout make_param_layout(const BertConfig& c);

// TF's regex exclusion list {"LayerNorm", "layer_norm", "bias"} applied to a name.
bool excluded_from_decay(const std::string& name);

}  // namespace bert::model
