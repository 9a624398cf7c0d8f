#include "harness/run/cache_clear.h"

#include <chrono>

#include <sstream>

#include "process/capture.h"
#include "harness/run/preflight.h"
#include "results/mllog/mllog.h"

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

// Per node from the step's tagged output: a node cleared when it said cache_clear_ok; its reason is the
// last other line it printed. Output without these words (a plan from before they were printed) leaves
// every node with the step's status.
void per_node_outcome(const Plan& plan, const Captured& c, CacheClearOutcome& out, std::vector<std::string>& reasons) {
  if (c.output.find("cache_clear_ok") == std::string::npos && c.output.find("cache_clear_failed") == std::string::npos)
    return;
  const std::vector<std::string> texts = split_probe_output(plan, c.output);
  for (size_t i = 0; i < out.cleared.size() && i < texts.size(); ++i) {
    out.cleared[i] = texts[i].find("cache_clear_ok") != std::string::npos;
    std::istringstream in(texts[i]);
    std::string last;
    for (std::string l; std::getline(in, l);)
      if (l.find("cache_clear_") == std::string::npos && !l.empty()) last = l;
    if (!out.cleared[i]) reasons[i] = last.empty() ? "it did not answer (" + c.describe() + ")" : last;
  }
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
  out.cleared.assign(nodes.size(), false);
  std::vector<std::string> reasons(nodes.size());
  if (policy == CachePolicy::Off) {
    out.reason = "cache clearing is off in the system's policy";
  } else if (plan.cache_clear.argv.empty()) {
    out.reason = "the plan has no cache clear command";
  } else {
    ChildSpec spec{plan.cache_clear.argv, plan.env};  // the job-wide env applies to every command
    for (const auto& [k, v] : plan.cache_clear.env) spec.env[k] = v;
    Captured c = run_capture(spec, timeout_s);
    all = c.ok();
    out.cleared.assign(nodes.size(), all);
    if (!all) out.reason = "`" + plan.cache_clear.shell() + "` failed: " + c.describe();
    per_node_outcome(plan, c, out, reasons);
    std::string which;
    for (size_t i = 0; i < out.cleared.size(); ++i) {
      all = all && out.cleared[i];
      if (!out.cleared[i] && !reasons[i].empty()) which += (which.empty() ? "" : ", ") + nodes[i];
    }
    if (!which.empty())
      for (size_t i = 0; i < reasons.size(); ++i)
        if (!reasons[i].empty()) {
          out.reason = "not cleared on " + which + ": " + reasons[i];
          break;
        }
  }
  const int64_t t = now_ms();
  for (size_t i = 0; i < nodes.size(); ++i)
    out.mllog.push_back(cache_clear_line(t, nodes[i], out.cleared[i], reasons[i].empty() ? out.reason : reasons[i]));
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
