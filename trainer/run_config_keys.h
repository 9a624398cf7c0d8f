// Every run-config key, declared once: its name in the run config (`group.key`), type, default, allowed
// range or values, meaning, the RunConfig field it fills, and the system-YAML key (`benchmark.*`) it
// comes from. The trainer's parser (run_config.cpp) and RunConfig's defaults, the harness's schema rows
// and `harness schema` (harness/config/schema.cpp), and the Plan's trainer config
// (harness/plan/trainer_config.cpp) are all made from this table. Look a row up by either name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/range.h"
#include "trainer/run_config.h"

namespace bert::trainer {

enum class KeyType { String, Int, Float, Bool, Enum };

using Member = std::variant<std::string RunConfig::*, int RunConfig::*, int64_t RunConfig::*, uint64_t RunConfig::*,
                            double RunConfig::*, bool RunConfig::*, Precision RunConfig::*,
                            Backend RunConfig::*, data::Format RunConfig::*,
                            model::ModelSize RunConfig::*>;

struct RunConfigKey {
  std::string name;                  // in the run config: "optimizer.learning_rate"
  KeyType type = KeyType::String;
  std::string def;                   // default as YAML text ("" = empty; run.precision: "" = from the backend)
  Range range;                       // Int, Float
  std::vector<std::string> choices;  // Enum (an enum member: its table's words)
  std::string doc;
  Member member;
  std::string system_key;            // where a system YAML sets it ("benchmark.learning_rate"); "" = the
                                     // harness sets it itself (seed, rendezvous, submission)
  bool system_auto = false;          // the system key also takes `auto` (its default): the harness resolves it

  std::string group() const { return name.substr(0, name.find('.')); }
  std::string key() const { return name.substr(name.find('.') + 1); }
  // "" when c's value of this key is allowed, else what is wrong ("must be >= 1, got 0", "'x' is not one of a, b").
  std::string problem(const RunConfig& c) const;
};

// In run-config order: groups model, data, batch, optimizer, stopping, run, submission.
const std::vector<RunConfigKey>& run_config_keys();
const RunConfigKey* find_run_config_key(std::string_view name);
const RunConfigKey* find_run_config_key_by_system_key(std::string_view system_key);
std::vector<std::string> run_config_groups();  // in table order

}  // namespace bert::trainer
