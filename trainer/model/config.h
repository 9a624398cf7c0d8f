// BERT model hyperparameters: a named size (tiny/base/large) or a bert_config.json.
// Vocabulary size and max sequence length follow the data (the run config), not the size name.
#pragma once
#include <stdexcept>
#include <string>

#include "common/enum_names.h"
#include "common/user_error.h"

namespace bert::model {

// A user-caused model problem (bad bert_config.json, checkpoint that does not match the model).
using ModelError = bert::UserError;

struct BertConfig {
  int vocab_size = 30522;
  int hidden = 1024;
  int layers = 24;
  int heads = 16;
  int intermediate = 4096;
  int max_position = 512;
  int type_vocab = 2;
  float initializer_range = 0.02f;
  float hidden_dropout = 0.1f;
  float attention_dropout = 0.1f;

  int head_dim() const { return hidden / heads; }
};

// model.size / benchmark.model: tiny (L2/H128/A2/I512), base (L12/H768/A12), large (L24/H1024/A16), or custom
// (a bert_config.json).
enum class ModelSize { Tiny, Base, Large, Custom };
inline constexpr EnumNames<ModelSize, 4> kModelSizeNames{
    {{ModelSize::Tiny, "tiny"}, {ModelSize::Base, "base"}, {ModelSize::Large, "large"}, {ModelSize::Custom, "custom"}}};
inline const char* model_size_name(ModelSize s) { return enum_name(s, kModelSizeNames); }

// The named sizes' hyperparameters; ModelError for custom (it has no size of its own).
BertConfig bert_config_for_size(ModelSize size);

// Reads the keys of Google's bert_config.json (hidden_size, num_hidden_layers, ...). hidden_act must
// be "gelu" (the tanh form is used, as NVIDIA and the TF reference do). ModelError names file and key.
BertConfig load_bert_config_json(const std::string& path);

// Checks heads divide hidden etc.; ModelError with `what` as the source name.
void validate(const BertConfig& c, const std::string& what);

}  // namespace bert::model
