#include "harness/run/node_record.h"

#include <algorithm>

#include "common/json_fields.h"

namespace bert::harness {

using ojson = nlohmann::ordered_json;

// state.json's "nodes": node name -> its record (older state files: no "excluded")
constexpr auto kNodeRecordFields = std::make_tuple(
    field("failed_first", &NodeRecord::failed_first), field("cache_clear_failures", &NodeRecord::cache_clear_failures),
    field("preflight", &NodeRecord::preflight), optional_field("excluded", &NodeRecord::excluded));
BERT_JSON_FIELDS(ojson, NodeRecord, kNodeRecordFields)

std::string node_of_rank(const Plan& plan, int global_rank) {
  for (const NodePlan& n : plan.nodes)
    for (const RankPlan& r : n.ranks)
      if (r.global_rank == global_rank) return n.hostname;
  return "";
}

std::vector<std::string> node_report(const NodeRecords& r, const std::string& outdir) {
  std::vector<std::string> out;
  std::string bad;
  for (const auto& [node, n] : r) {
    if (n.empty()) continue;
    std::string s = node + ":";
    std::string sep = " ";
    if (n.excluded) s += sep + "excluded", sep = "; ";
    if (!n.failed_first.empty()) {
      std::string list;
      for (int e : n.failed_first) list += (list.empty() ? "" : ", ") + std::to_string(e);
      s += sep + "ranks failed first in experiment(s) " + list, sep = "; ";
      if (!n.excluded) bad += (bad.empty() ? "" : ",") + node;
    }
    if (n.cache_clear_failures > 0) s += sep + "cache clear refused " + std::to_string(n.cache_clear_failures) + " time(s)", sep = "; ";
    for (const std::string& p : n.preflight) s += sep + "preflight: " + p, sep = "; ";
    out.push_back(s);
  }
  if (!bad.empty()) out.push_back("continue the set without it: harness run --resume " + outdir + " --exclude " + bad);
  return out;
}

}  // namespace bert::harness
