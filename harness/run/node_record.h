// Bad nodes: which node a failed rank ran on (the plan's rank -> node), and what happened on each node
// across the set (SetState::nodes: failures, cache clears refused, preflight findings), so the node to
// leave out can be named and `harness run --resume OUTDIR --exclude NODE` continues without it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/plan.h"

namespace bert::harness {

struct NodeRecord {
  std::vector<int> failed_first;          // experiments in which a rank of this node failed first
  int cache_clear_failures = 0;           // experiments whose cache clear this node refused
  std::vector<std::string> preflight;     // preflight findings on this node (distinct)
  bool excluded = false;                  // the set goes on without it
  bool empty() const { return failed_first.empty() && cache_clear_failures == 0 && preflight.empty() && !excluded; }
};
using NodeRecords = std::map<std::string, NodeRecord>;

// state.json's form of a record (a map of them converts as a JSON object keyed by node).
void to_json(nlohmann::ordered_json& j, const NodeRecord& r);
void from_json(const nlohmann::ordered_json& j, NodeRecord& r);  // throws json::exception

// The hostname of the node whose ranks include `global_rank` ("" when the plan has no such rank).
std::string node_of_rank(const Plan& plan, int global_rank);

// "node2: ranks failed first in experiments 2, 3; cache clear refused 1 time(s); preflight: ..." for each
// node with a record; and, for the nodes whose ranks failed first, the line that continues without them.
std::vector<std::string> node_report(const NodeRecords& r, const std::string& outdir);

}  // namespace bert::harness
