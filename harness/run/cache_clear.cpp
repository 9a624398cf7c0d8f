#include "harness/run/cache_clear.h"

#include <chrono>

#include "harness/run/capture.h"
#include "results/mllog.h"

namespace bert::harness {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> node_names(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& n : plan.nodes) names.push_back(n.hostname);
  if (names.empty()) names.push_back("localhost");
  return names;
}

}  // namespace

std::string cache_clear_line(int64_t time_ms, const std::string& node, bool cleared, const std::string& reason) {
  results::json meta = results::json::object();
  meta["node"] = node;
  if (!cleared) meta["reason"] = reason;
  return results::format_mllog_line(time_ms, results::EventType::PointInTime, results::key::kCacheClear, cleared,
                                    meta, "harness/run/cache_clear.cpp", __LINE__);
}

CacheClearOutcome clear_caches(const Plan& plan, double timeout_s) {
  CacheClearOutcome out;
  const auto nodes = node_names(plan);
  const CachePolicy policy = plan.experiment.cache_clear;
  bool all = false;
  if (policy == CachePolicy::Off) {
    out.reason = "cache clearing is off in the system's policy";
  } else if (plan.cache_clear.argv.empty()) {
    out.reason = "the plan has no cache clear command";
  } else {
    ChildSpec spec{plan.cache_clear.argv, plan.env};  // the job-wide env applies to every command
    for (const auto& [k, v] : plan.cache_clear.env) spec.env[k] = v;
    Captured c = run_capture(spec, timeout_s);
    all = c.ok();
    if (!all) out.reason = "`" + plan.cache_clear.shell() + "` failed: " + c.describe();
  }
  // One launcher step covers every node; its status is the only truth we have per node, so a
  // failed step marks every node as not cleared.
  out.cleared.assign(nodes.size(), all);
  const int64_t t = now_ms();
  for (size_t i = 0; i < nodes.size(); ++i) out.mllog.push_back(cache_clear_line(t, nodes[i], all, out.reason));
  if (all) {
    out.message = "caches cleared on " + std::to_string(nodes.size()) + " node(s)";
  } else if (policy == CachePolicy::Required) {
    out.fails_experiment = true;
    out.message = "cache clear is required by the system but was not done: " + out.reason;
  } else {
    out.message = "warning: caches not cleared (" + std::string(policy == CachePolicy::Off ? "off" : "best-effort") +
                  "): " + out.reason;
  }
  return out;
}

}  // namespace bert::harness
