#include "harness/plan/closed_division.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "formats/shard_format.h"
#include "harness/config/settings.h"
#include "results/rcp.h"
#include "trainer/eval_cadence.h"
#include "trainer/run_config.h"  // model.size as model::ModelSize

namespace bert::harness {
namespace {

constexpr const char* kOpen = " (experiment.division: open allows other values)";

void require_int(const Config& cfg, const std::string& key, long long want, const std::string& why) {
  if (cfg.integer(key) != want)
    cfg.fail(key, fmt::format("closed division: {} must be {} ({}); got {}{}", key, want, why, cfg.integer(key), kOpen));
}

std::string samples_text(double v) { return fmt::format("{:.0f}", v); }

}  // namespace

double planned_global_batch(const Config& cfg, int world_size) {
  const bool packed = setting(cfg, "benchmark.data.format", data::kFormatNames) == data::Format::packed;
  return static_cast<double>(cfg.integer("benchmark.batch_size")) * static_cast<double>(cfg.integer("benchmark.gradient_accumulation_steps")) *
         world_size * (packed ? cfg.real("benchmark.average_packing_rate") : 1.0);
}

constexpr double kClosedTarget = 0.72;

std::string rcp_does_not_apply(const Config& cfg) {
  std::string why;
  if (setting(cfg, "benchmark.model", model::kModelSizeNames) != model::ModelSize::Large) why = "benchmark.model " + cfg.str("benchmark.model") + ", not BERT-Large (large)";
  if (std::abs(cfg.real("benchmark.target_accuracy") - kClosedTarget) > 1e-9)
    why += fmt::format("{}benchmark.target_accuracy {}, not the closed division's 0.720", why.empty() ? "" : "; ",
                       cfg.real("benchmark.target_accuracy"));
  return why;
}

void check_closed_division(const Config& cfg, double gbs) {
  if (cfg.str("system.submitter").empty())
    cfg.fail("system.submitter", std::string("closed division: the submitting organization is required (the logs' submission_org "
                                             "and systems JSON's submitter; without it they say SUBMISSION_ORG_PLACEHOLDER)"));
  if (std::abs(cfg.real("benchmark.target_accuracy") - kClosedTarget) > 1e-9)
    cfg.fail("benchmark.target_accuracy", fmt::format("closed division: the quality target is 0.720 masked-LM accuracy; got {}{}",
                                                      cfg.real("benchmark.target_accuracy"), kOpen));
  require_int(cfg, "benchmark.max_seq_length", 512, "MLPerf's phase-2 sequence length");
  require_int(cfg, "benchmark.max_predictions_per_seq", 76, "MLPerf's masked predictions per sequence");
  require_int(cfg, "benchmark.num_eval_examples", 10000, "MLPerf's eval set");
  if (setting(cfg, "benchmark.model", model::kModelSizeNames) != model::ModelSize::Large)
    cfg.fail("benchmark.model", "closed division: BERT-Large (model: large) from the phase-1 checkpoint; got " +
                                    cfg.str("benchmark.model") + kOpen);
  if (cfg.str("benchmark.data.checkpoint").empty())
    cfg.fail("benchmark.data.checkpoint",
             std::string("closed division: training starts from MLPerf's phase-1 checkpoint (model.ckpt-28252 converted "
                         "to HDF5); none given") + kOpen);
  const long long interval = bert::trainer::mlperf_eval_interval(gbs);
  const long long every = cfg.integer("benchmark.eval_interval_samples");
  if (every != -1 && every != interval)
    cfg.fail("benchmark.eval_interval_samples",
             fmt::format("closed division: evaluation every FLOOR(0.05 x (230.23 x GBS + 3,000,000), 25,000) = {} samples for "
                         "global batch {}; got {} (-1 = the formula){}", interval, samples_text(gbs), every, kOpen));
  const long long start = cfg.integer("benchmark.eval_start_samples");
  if (start != -1 && start != interval)
    cfg.fail("benchmark.eval_start_samples",
             fmt::format("closed division: the first evaluation comes after one interval, {} samples for global batch {}; "
                         "got {} (-1 = one interval){}", interval, samples_text(gbs), start, kOpen));
}

RunTimeFloor run_time_floor(const Config& cfg, double gbs, int world_size) {
  const results::rcp::Coverage c = results::rcp::coverage(gbs, true);
  const auto& table = results::rcp::bert_table().pruned;
  double samples = c.record ? c.record->mean : table.empty() ? 0 : table.back().mean;
  std::string what = c.record ? fmt::format("the RCP mean for global batch {}", samples_text(gbs))
                              : fmt::format("the mean of the largest RCP, batch {}", table.empty() ? "?" : samples_text(table.back().bs));
  const double by_steps = double(cfg.integer("benchmark.max_steps")) * gbs;
  if (by_steps > 0 && by_steps < samples) {
    samples = by_steps;
    what = fmt::format("max_steps {} x global batch {}, where the run stops", cfg.integer("benchmark.max_steps"), samples_text(gbs));
  }
  const double cap = double(cfg.integer("benchmark.max_samples"));
  if (cap > 0 && cap < samples) {
    samples = cap;
    what = "max_samples, where the run stops";
  }
  RunTimeFloor f;
  f.seconds = samples / (kFloorSamplesPerRankS * std::max(1, world_size));
  f.why = fmt::format("{} samples ({}) at {:.0f} samples/s on each of {} rank(s), faster than any MLPerf BERT result so far",
                      samples_text(samples), what, kFloorSamplesPerRankS, world_size);
  return f;
}

RcpOutlook rcp_outlook(double gbs, const std::string& ruleset) {
  using Kind = results::rcp::Coverage::Kind;
  const results::rcp::Coverage c = results::rcp::coverage(gbs, true);
  const std::string head = fmt::format("global batch {} (ruleset {} RCPs): ", samples_text(gbs), ruleset);
  RcpOutlook o;
  o.submittable = c.kind != Kind::Missing && c.kind != Kind::NoRcps;
  switch (c.kind) {
    case Kind::Exact:
      o.text = head + fmt::format("RCP found: mean {} samples to converge; the set's olympic mean must be >= {}",
                                  samples_text(c.record->mean), samples_text(c.record->min_epochs));
      break;
    case Kind::Interpolated:
      o.text = head + fmt::format("RCP interpolated between batch {} and {}: mean {} samples; the set's olympic mean must be >= {}",
                                  samples_text(c.lo_bs), samples_text(c.hi_bs), samples_text(c.record->mean), samples_text(c.record->min_epochs));
      break;
    case Kind::BelowSmallest:
      o.text = head + fmt::format("below the smallest RCP (batch {}): accepted only if the set's olympic mean is >= {} samples, "
                                  "else a new RCP is needed", samples_text(c.record->bs), samples_text(c.record->min_epochs));
      break;
    case Kind::Missing:
      o.text = head + fmt::format("no RCP: this set cannot be submitted without a bypass (the largest RCP is for batch {})",
                                  samples_text(c.lo_bs));
      break;
    case Kind::NoRcps:
      o.text = head + "no RCP: this set cannot be submitted without a bypass (no RCPs at all)";
      break;
  }
  return o;
}

}  // namespace bert::harness
