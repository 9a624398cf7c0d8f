// BERT compliance rules as data: one YAML file per official scope under results/rules/training_<rs>/,
// embedded into the library at build time. This is the in-memory model the engine interprets.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/mllog/pyjson.h"

namespace bert::results::rules {

enum class Req { None, ExactlyOne, AtLeastOne, AtLeastN, Optional, AtLeastOneOr };

// One check predicate, post action or at-least-one test: an operation of the engine's small
// vocabulary with its arguments (see results/rules/README.md).
struct Step {
  std::string op;
  std::vector<std::string> args;
  std::string python;  // the official rule's Python text, for messages
};

struct KeyRule {
  std::string name;
  Req req = Req::None;
  int at_least = 0;                       // AT_LEAST(n)
  std::vector<std::string> alternatives;  // AT_LEAST_ONE_OR(a, b)
  std::vector<Step> checks;
  std::vector<Step> posts;
  std::optional<Step> atleast_one_check;
};

struct Scope {
  std::string file;  // "training_5.0.0/common.yaml", as the official checker names it
  json begin = json::object();  // initial run state (BEGIN)
  std::vector<KeyRule> keys;
  const KeyRule* find(std::string_view key) const;
};

// nullptr when the ruleset has no such scope (e.g. closed_resnet: only BERT rules are bundled).
const Scope* find_scope(std::string_view ruleset, std::string_view scope);
bool has_ruleset(std::string_view ruleset);
std::vector<std::string> rulesets();

// Parses one rule file; throws std::runtime_error naming the file and entry on unknown operations.
Scope parse_scope(std::string_view file, std::string_view yaml_text);

}  // namespace bert::results::rules
