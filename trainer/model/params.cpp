#include "trainer/model/params.h"

namespace bert::model {

bool excluded_from_decay(const std::string& name) {
  return name.find("LayerNorm") != std::string::npos || name.find("layer_norm") != std::string::npos ||
         name.find("bias") != std::string::npos;
}

namespace {

class Builder {
 public:
  explicit Builder(ParamLayout& l) : l_(l) {}
  size_t add(const std::string& name, std::vector<int> shape) {
    ParamInfo p;
    p.name = name;
    p.shape = std::move(shape);
    p.size = 1;
    for (int d : p.shape) p.size *= static_cast<size_t>(d);
    p.offset = (l_.total + kParamAlign - 1) / kParamAlign * kParamAlign;
    p.no_decay = excluded_from_decay(name);
    p.is_gamma = name.ends_with("/gamma");
    p.is_matrix = p.shape.size() == 2;
    l_.total = p.offset + p.size;
    l_.tensors.push_back(p);
    return p.offset;
  }
  void layer_norm(const std::string& scope, size_t& g, size_t& b, int h) {
    g = add(scope + "/LayerNorm/gamma", {h});
    b = add(scope + "/LayerNorm/beta", {h});
  }

 private:
  ParamLayout& l_;
};

}  // namespace

ParamLayout make_param_layout(const BertConfig& c) {
  ParamLayout l;
  l.config = c;
  Builder b(l);
  const int H = c.hidden, I = c.intermediate;
  l.word_emb = b.add("bert/embeddings/word_embeddings", {c.vocab_size, H});
  l.pos_emb = b.add("bert/embeddings/position_embeddings", {c.max_position, H});
  l.type_emb = b.add("bert/embeddings/token_type_embeddings", {c.type_vocab, H});
  b.layer_norm("bert/embeddings", l.emb_ln_g, l.emb_ln_b, H);
  for (int i = 0; i < c.layers; ++i) {
    const std::string s = "bert/encoder/layer_" + std::to_string(i);
    LayerOffsets o{};
    o.q_w = b.add(s + "/attention/self/query/kernel", {H, H});
    o.q_b = b.add(s + "/attention/self/query/bias", {H});
    o.k_w = b.add(s + "/attention/self/key/kernel", {H, H});
    o.k_b = b.add(s + "/attention/self/key/bias", {H});
    o.v_w = b.add(s + "/attention/self/value/kernel", {H, H});
    o.v_b = b.add(s + "/attention/self/value/bias", {H});
    o.ao_w = b.add(s + "/attention/output/dense/kernel", {H, H});
    o.ao_b = b.add(s + "/attention/output/dense/bias", {H});
    b.layer_norm(s + "/attention/output", o.ao_ln_g, o.ao_ln_b, H);
    o.i_w = b.add(s + "/intermediate/dense/kernel", {H, I});
    o.i_b = b.add(s + "/intermediate/dense/bias", {I});
    o.o_w = b.add(s + "/output/dense/kernel", {I, H});
    o.o_b = b.add(s + "/output/dense/bias", {H});
    b.layer_norm(s + "/output", o.o_ln_g, o.o_ln_b, H);
    l.layer.push_back(o);
  }
  l.pool_w = b.add("bert/pooler/dense/kernel", {H, H});
  l.pool_b = b.add("bert/pooler/dense/bias", {H});
  l.mlm_w = b.add("cls/predictions/transform/dense/kernel", {H, H});
  l.mlm_b = b.add("cls/predictions/transform/dense/bias", {H});
  b.layer_norm("cls/predictions/transform", l.mlm_ln_g, l.mlm_ln_b, H);
  l.mlm_out_bias = b.add("cls/predictions/output_bias", {c.vocab_size});
  l.nsp_w = b.add("cls/seq_relationship/output_weights", {2, H});
  l.nsp_b = b.add("cls/seq_relationship/output_bias", {2});
  l.total = (l.total + kParamAlign - 1) / kParamAlign * kParamAlign;
  return l;
}

const ParamInfo* ParamLayout::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

size_t ParamLayout::num_params() const {
  size_t n = 0;
  for (const auto& t : tensors) n += t.size;
  return n;
}

}  // namespace bert::model
