// Per-experiment cache clear through the launcher (plan.cache_clear: one task per node) and the
// `cache_clear` MLLOG lines, one per node, carrying the true outcome.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/plan/plan.h"

namespace bert::harness {

struct CacheClearOutcome {
  std::vector<bool> cleared;        // per node (plan.nodes order)
  std::string reason;               // why not cleared (command output / policy), "" when all cleared
  std::vector<std::string> mllog;   // one :::MLLOG cache_clear line per node
  bool fails_experiment = false;    // policy required and some node was not cleared
  std::string message;              // one-line description for the console
};

// Runs the command (unless the policy is off) and builds the outcome. `timeout_s` bounds the command.
CacheClearOutcome clear_caches(const Plan& plan, double timeout_s = 300);

// The MLLOG line for one node; exposed for tests.
std::string cache_clear_line(int64_t time_ms, const std::string& node, bool cleared, const std::string& reason);

}  // namespace bert::harness
