#include "bench/trainer_throughput/profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace bert::bench {
namespace {

using model::StepOp;

double floor_ms(const ProfileInput& p, size_t i) {
  return 1e3 * model::floor_seconds(p.costs[i], p.gemm_flop_per_s, p.copy_bytes_per_s);
}

double ops_ms(const ProfileInput& p) { return std::accumulate(p.ms.begin(), p.ms.end(), 0.0); }

double floors_ms(const ProfileInput& p) {
  double f = 0;
  for (size_t i = 0; i < model::kStepOps; ++i) f += floor_ms(p, i);
  return f;
}

}  // namespace

std::string profile_inconsistency(const ProfileInput& p) {
  if (p.steps <= 0 || p.step_ms <= 0) return "no profiled step";
  const double sum = ops_ms(p) + p.gaps_ms;
  if (std::fabs(sum - p.step_ms) > 0.01 * p.step_ms + 0.05) {
    char b[160];
    std::snprintf(b, sizeof b, "ops (%.3f ms) + gaps (%.3f ms) != step (%.3f ms)", ops_ms(p), p.gaps_ms, p.step_ms);
    return b;
  }
  for (size_t i = 0; i < model::kStepOps; ++i)
    if ((p.costs[i].flop > 0 || p.costs[i].bytes > 0) && p.spans[i] == 0)
      return std::string("op ") + model::step_op_name(static_cast<StepOp>(i)) + " has work but was never marked";
  return "";
}

nlohmann::json profile_json(const ProfileInput& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < model::kStepOps; ++i) {
    const double f = floor_ms(p, i);
    ops.push_back({{"op", model::step_op_name(static_cast<StepOp>(i))},
                   {"ms", p.ms[i]},
                   {"share", p.step_ms > 0 ? p.ms[i] / p.step_ms : 0.0},
                   {"spans", p.spans[i]},
                   {"gflop", p.costs[i].flop / 1e9},
                   {"gbytes", p.costs[i].bytes / 1e9},
                   {"floor_ms", f},
                   {"over_floor_ms", p.ms[i] - f}});
  }
  return {{"steps", p.steps},
          {"graph", p.graph},
          {"step_ms", p.step_ms},
          {"timed_step_ms", p.timed_step_ms},
          {"gaps_ms", p.gaps_ms},
          {"floor_ms", floors_ms(p)},
          {"gemm_tflops_measured", p.gemm_flop_per_s / 1e12},
          {"copy_tb_per_s_measured", p.copy_bytes_per_s / 1e12},
          {"ops", ops}};
}

std::string profile_table(const ProfileInput& p) {
  std::vector<size_t> order(model::kStepOps);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p.ms[a] - floor_ms(p, a) > p.ms[b] - floor_ms(p, b); });
  std::string out;
  char line[200];
  std::snprintf(line, sizeof line,
                "profile: %d step(s)%s, %.2f ms per step (%.2f ms without events); GEMM %.0f TFLOP/s, copy %.2f TB/s "
                "measured\n",
                p.steps, p.graph ? " replayed as a graph" : " queued eagerly", p.step_ms, p.timed_step_ms,
                p.gemm_flop_per_s / 1e12, p.copy_bytes_per_s / 1e12);
  out += line;
  std::snprintf(line, sizeof line, "%-20s %9s %7s %9s %9s %9s %9s\n", "op", "ms", "share", "floor ms", "over ms",
                "GFLOP", "GB");
  out += line;
  for (size_t i : order) {
    std::snprintf(line, sizeof line, "%-20s %9.3f %6.1f%% %9.3f %9.3f %9.1f %9.2f\n",
                  model::step_op_name(static_cast<StepOp>(i)), p.ms[i], p.step_ms > 0 ? 100 * p.ms[i] / p.step_ms : 0.0,
                  floor_ms(p, i), p.ms[i] - floor_ms(p, i), p.costs[i].flop / 1e9, p.costs[i].bytes / 1e9);
    out += line;
  }
  std::snprintf(line, sizeof line, "%-20s %9.3f %6.1f%%\n", "launch gaps", p.gaps_ms,
                p.step_ms > 0 ? 100 * p.gaps_ms / p.step_ms : 0.0);
  out += line;
  std::snprintf(line, sizeof line, "%-20s %9.3f %7s %9.3f %9.3f\n", "step", p.step_ms, "", floors_ms(p),
                p.step_ms - floors_ms(p));
  out += line;
  return out;
}

}  // namespace bert::bench
