#include "harness/run/node_record.h"

#include <algorithm>

namespace bert::harness {

using ojson = nlohmann::ordered_json;

ojson to_json(const NodeRecords& r) {
  ojson j = ojson::object();
  for (const auto& [node, n] : r)
    j[node] = {{"failed_first", n.failed_first}, {"cache_clear_failures", n.cache_clear_failures},
               {"preflight", n.preflight}, {"excluded", n.excluded}};
  return j;
}

NodeRecords node_records_from_json(const ojson& j) {
  NodeRecords r;
  for (const auto& [node, x] : j.items()) {
    NodeRecord n;
    x.at("failed_first").get_to(n.failed_first);
    x.at("cache_clear_failures").get_to(n.cache_clear_failures);
    x.at("preflight").get_to(n.preflight);
    n.excluded = x.value("excluded", false);
    r[node] = n;
  }
  return r;
}

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
