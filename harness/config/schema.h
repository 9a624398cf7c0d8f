// The system-YAML schema as data: one row per key (path, type, default, allowed range or set, doc).
// `harness` validates every file against it and `harness schema` prints it. The benchmark.* keys the
// trainer reads are rows of trainer/run_config_keys.cpp, declared there once.
#pragma once
#include <string>
#include <vector>

#include "common/range.h"

namespace bert::harness {

enum class ValueType {
  String,
  Int,
  Float,
  Bool,
  Enum,       // a string from `choices`
  StringList,
  IntList,
  IntOrAuto,  // an integer or the word "auto"
  StringMap,  // a mapping of free names to strings (env: NCCL_IB_HCA: mlx5_0 ...)
  Mounts,     // a list of "SRC:DST[:FLAGS]" strings
};

struct SchemaEntry {
  std::string path;                    // dotted key path, e.g. "launcher.srun.mpi"
  ValueType type = ValueType::String;
  std::string def;                     // default as YAML text ("" with required=false: empty)
  Range range;                         // Int, Float, IntOrAuto
  std::vector<std::string> choices;    // Enum
  std::string doc;
};

const std::vector<SchemaEntry>& schema();
const SchemaEntry* schema_find(const std::string& path);
// True when some key lives below `prefix` (so `prefix` is a group such as "launcher.srun").
bool schema_is_group(const std::string& prefix);
// Immediate child names of a group ("" = top level), for did-you-mean.
std::vector<std::string> schema_children(const std::string& prefix);
std::string type_name(const SchemaEntry& e);

}  // namespace bert::harness
