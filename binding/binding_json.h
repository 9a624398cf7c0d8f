// JSON form of the binding value types (embedded in the harness Plan, read back by `bind`).
// Keys are the C++ field names; from_json requires every key to_json writes.
#pragma once
#include <nlohmann/json.hpp>

#include "binding/binding.h"
#include "common/json_fields.h"

namespace bert::binding {

using ojson = nlohmann::ordered_json;

BERT_JSON_DECLARE(ojson, Gpu)
BERT_JSON_DECLARE(ojson, Nic)
BERT_JSON_DECLARE(ojson, SkippedDevice)
BERT_JSON_DECLARE(ojson, NumaNode)
BERT_JSON_DECLARE(ojson, NodeTopology)
BERT_JSON_DECLARE(ojson, RankBinding)

// Policy names as users write them in a system YAML: "exclusive", "exclusive-nosmt", "node", "socket",
// "none", "map"; memory "node", "none", "map"; unit "gpu", "socket", "numa". parse_* return false on
// an unknown name.
std::string to_string(CpuPolicy p);
std::string to_string(MemPolicy p);
std::string to_string(RankUnit u);
bool parse_cpu_policy(const std::string& name, CpuPolicy& out);
bool parse_mem_policy(const std::string& name, MemPolicy& out);
bool parse_rank_unit(const std::string& name, RankUnit& out);
std::string to_string(NicPolicy p);  // "auto", "none", "map"
bool parse_nic_policy(const std::string& name, NicPolicy& out);

}  // namespace bert::binding
