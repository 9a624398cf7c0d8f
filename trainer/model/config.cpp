#include "trainer/model/config.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace bert::model {

BertConfig bert_config_for_size(ModelSize size) {
  BertConfig c;
  switch (size) {
    case ModelSize::Tiny: c.hidden = 128, c.layers = 2, c.heads = 2, c.intermediate = 512; break;
    case ModelSize::Base: c.hidden = 768, c.layers = 12, c.heads = 12, c.intermediate = 3072; break;
    case ModelSize::Large: c.hidden = 1024, c.layers = 24, c.heads = 16, c.intermediate = 4096; break;
    case ModelSize::Custom: throw ModelError("model size custom has no hyperparameters of its own: give a bert_config.json");
  }
  return c;
}

void validate(const BertConfig& c, const std::string& what) {
  auto bad = [&](const std::string& msg) { throw ModelError(what + ": " + msg); };
  if (c.hidden <= 0 || c.layers <= 0 || c.heads <= 0 || c.intermediate <= 0) bad("sizes must be positive");
  if (c.hidden % c.heads != 0) bad("hidden_size must be a multiple of num_attention_heads");
  if (c.vocab_size <= 0 || c.max_position <= 0 || c.type_vocab < 2) bad("vocab/position/type sizes too small");
  if (c.hidden_dropout < 0 || c.hidden_dropout >= 1 || c.attention_dropout < 0 || c.attention_dropout >= 1)
    bad("dropout probabilities must be in [0, 1)");
}

BertConfig load_bert_config_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ModelError(path + ": cannot open bert_config");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw ModelError(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  BertConfig c;
  auto get_int = [&](const char* key, int& out) {
    if (!j.contains(key)) throw ModelError(path + ": missing key '" + key + "'");
    if (!j[key].is_number_integer()) throw ModelError(path + ": key '" + key + "' must be an integer");
    out = j[key].get<int>();
  };
  auto get_float = [&](const char* key, float& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_number()) throw ModelError(path + ": key '" + key + "' must be a number");
    out = j[key].get<float>();
  };
  get_int("hidden_size", c.hidden);
  get_int("num_hidden_layers", c.layers);
  get_int("num_attention_heads", c.heads);
  get_int("intermediate_size", c.intermediate);
  get_int("vocab_size", c.vocab_size);
  get_int("max_position_embeddings", c.max_position);
  if (j.contains("type_vocab_size")) get_int("type_vocab_size", c.type_vocab);
  get_float("initializer_range", c.initializer_range);
  get_float("hidden_dropout_prob", c.hidden_dropout);
  get_float("attention_probs_dropout_prob", c.attention_dropout);
  if (j.contains("hidden_act")) {
    const auto act = j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "";
    if (act != "gelu" && act != "gelu_new")
      throw ModelError(path + ": key 'hidden_act' must be \"gelu\" (got " + j["hidden_act"].dump() + ")");
  }
  validate(c, path);
  return c;
}

}  // namespace bert::model
