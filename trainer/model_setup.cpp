#include "trainer/model_setup.h"

#include <algorithm>
#include <cmath>

#include "formats/checkpoint_h5.h"
#include "trainer/model/init.h"

namespace bert::trainer {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

model::BertConfig resolve_model_config(const RunConfig& cfg) {
  model::BertConfig c;
  if (!cfg.bert_config.empty()) {
    c = model::load_bert_config_json(cfg.bert_config);
    if (c.vocab_size != cfg.vocab_size)
      throw model::ModelError(cfg.bert_config + ": vocab_size " + std::to_string(c.vocab_size) +
                              " does not match the data's (data.vocab_size " + std::to_string(cfg.vocab_size) + ")");
  } else {
    c = model::bert_config_for_size(cfg.model_size);
    c.vocab_size = cfg.vocab_size;
    c.max_position = std::max(c.max_position, cfg.max_seq_length);
  }
  if (cfg.max_seq_length > c.max_position)
    throw model::ModelError("data.max_seq_length " + std::to_string(cfg.max_seq_length) +
                            " exceeds the model's max_position_embeddings " + std::to_string(c.max_position));
  model::validate(c, cfg.bert_config.empty() ? std::string("model.size ") + model::model_size_name(cfg.model_size) : cfg.bert_config);
  return c;
}

std::vector<float> initial_params(const model::ParamLayout& layout, const RunConfig& cfg) {
  std::vector<float> params;
  if (cfg.init_checkpoint.empty()) {
    model::init_params(layout, cfg.seed, params);
    return params;
  }
  const std::string& path = cfg.init_checkpoint;
  data::TensorMap tensors = data::load_checkpoint_h5(path);
  params.assign(layout.total, 0.0f);
  for (const model::ParamInfo& p : layout.tensors) {
    auto it = tensors.find(p.name);
    if (it == tensors.end()) it = tensors.find("/" + p.name);
    if (it == tensors.end())
      throw model::ModelError(path + ": checkpoint has no tensor " + p.name + " (is it a " + model::model_size_name(cfg.model_size) +
                              " BERT checkpoint?)");
    const data::Tensor& t = it->second;
    const std::vector<int64_t> want(p.shape.begin(), p.shape.end());
    if (t.shape != want)
      throw model::ModelError(path + ": tensor " + p.name + " has shape " + shape_str(t.shape) + ", the model needs " +
                              shape_str(want) + " (model.size " + model::model_size_name(cfg.model_size) + ", data.vocab_size " +
                              std::to_string(cfg.vocab_size) + ")");
    for (size_t i = 0; i < t.values.size(); ++i)
      if (!std::isfinite(t.values[i]))
        throw model::ModelError(path + ": tensor " + p.name + " holds a non-finite value at element " +
                                std::to_string(i));
    std::copy(t.values.begin(), t.values.end(), params.begin() + static_cast<std::ptrdiff_t>(p.offset));
    tensors.erase(it);
  }
  if (!tensors.empty())
    throw model::ModelError(path + ": tensor " + tensors.begin()->first + " is not part of the model (model.size " +
                            model::model_size_name(cfg.model_size) + ")");
  return params;
}

}  // namespace bert::trainer
