#include "harness/submit/probe.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "harness/config/config.h"
#include "harness/plan/build_plan.h"
#include "harness/plan/closed_division.h"
#include "harness/plan/host_tool.h"
#include "harness/plan/walltime.h"
#include "harness/run/output_tree.h"
#include "harness/run/run.h"
#include "harness/run/set_state.h"
#include "harness/submit/probe_measure.h"
#include "results/rcp.h"
#include "trainer/eval_cadence.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

Config load(const ProbeOptions& o, const std::vector<std::string>& extra) {
  Overrides ov{o.env, o.sets};
  ov.sets.insert(ov.sets.end(), extra.begin(), extra.end());
  return Config::load(find_system_file(o.system), ov);
}

BuildOptions build_options(const ProbeOptions& o) {
  BuildOptions bo;
  bo.env = o.env;
  bo.source = o.source;
  return bo;
}

// The probe run's overrides: one open-division experiment in its own folder, stopped by its walltime;
// our trainer logs a point every steps_per_point steps and runs them all. to_target: it keeps the system's
// target and max_steps instead, and logs --points points per interval of the system's own cadence (so the
// samples it takes to the target are known to a fraction of that interval, for a few evaluations' cost).
std::vector<std::string> probe_sets(const ProbeOptions& o, const Plan& real, const Config& cfg, double gbs, const std::string& dir,
                                    bool to_target) {
  std::vector<std::string> s{"experiment.nexp=1", "experiment.division=open", "experiment.output_dir=" + dir,
                             "experiment.cache_clear=off", "experiment.job_walltime=",
                             fmt::format("experiment.run_walltime={}:{:02d}", o.seconds / 60, o.seconds % 60),
                             "experiment.seed_policy=random"};
  if (real.trainer_run.kind != TrainerKind::External) {
    const long long step = std::max(1LL, static_cast<long long>(std::ceil(gbs)));
    long long every = step * o.steps_per_point;
    if (to_target) {
      const trainer::EvalCadence system = trainer::make_eval_cadence(cfg.integer("benchmark.eval_start_samples"),
                                                                     cfg.integer("benchmark.eval_interval_samples"), gbs);
      every = std::max(step, system.interval / o.points / step * step);
    }
    s.push_back(fmt::format("benchmark.eval_start_samples={}", every));
    s.push_back(fmt::format("benchmark.eval_interval_samples={}", every));
    if (!to_target) {
      s.push_back(fmt::format("benchmark.max_steps={}", o.steps_per_point * (o.warmup + o.points + 1)));
      s.push_back("benchmark.target_accuracy=0.999");
    }
  }
  return s;
}

}  // namespace

void project(const ProbeInputs& in, ProbeProjection& out) {
  using Kind = results::rcp::Coverage::Kind;
  out.nexp = in.nexp;
  out.margin = in.margin;
  out.target = in.target;
  out.basis.clear();
  out.rcp.clear();
  const trainer::EvalCadence cadence = trainer::make_eval_cadence(in.eval_start_cfg, in.eval_interval_cfg, in.global_batch);
  out.eval_start = cadence.start;
  out.eval_interval = cadence.interval;
  if (in.stated_samples > 0) {
    out.basis = "stated";
    out.rcp = fmt::format("{:.0f} samples to reach target {:g}, stated with --samples", in.stated_samples, in.target);
    out.rcp_mean_samples = out.rcp_max_samples = in.stated_samples;
  } else if (!in.no_rcp.empty()) {
    if (in.converged_samples <= 0) {
      out.note = fmt::format("{}: the BERT RCPs do not say how many samples it trains to its target {:g}, and the probe run did "
                             "not reach it: no projection (--samples N states them; a longer probe, --seconds, may measure them)",
                             in.no_rcp, in.target);
      return;
    }
    // The system evaluates on its own cadence: a run stops at its first evaluation at or past these samples.
    const double start = double(cadence.start), every = double(std::max<long long>(1, cadence.interval));
    const double at = in.converged_samples <= start ? start : start + std::ceil((in.converged_samples - start) / every) * every;
    out.basis = "measured";
    out.rcp = fmt::format("the probe run reached target {:g} at {:.0f} samples; the system evaluates at {:.0f} + k x {:.0f}: "
                          "{:.0f} samples", in.target, in.converged_samples, start, every, at);
    out.rcp_mean_samples = out.rcp_max_samples = at;
  } else {
    const results::rcp::Coverage c = results::rcp::coverage(in.global_batch, true);
    switch (c.kind) {
      case Kind::Exact: out.rcp = fmt::format("batch {:g}: RCP found", c.record->bs); break;
      case Kind::Interpolated: out.rcp = fmt::format("interpolated between batch {:g} and {:g}", c.lo_bs, c.hi_bs); break;
      case Kind::BelowSmallest:
        out.rcp = fmt::format("batch {:g} is below the smallest RCP: batch {:g}'s, which the checker compares with",
                              in.global_batch, c.record->bs);
        break;
      case Kind::Missing:
      case Kind::NoRcps:
        out.note = fmt::format("no RCP covers global batch {:g} (the largest is for {:g}): no samples-to-converge to project from",
                               in.global_batch, c.lo_bs);
        return;
    }
    out.basis = "rcp";
    const results::rcp::Record& r = *c.record;
    out.rcp_mean_samples = r.mean;
    out.rcp_max_samples = r.samples.empty() ? r.mean + 2 * r.stdev : r.samples.back();
    if (r.samples.empty()) out.note = "the interpolated RCP has no reference runs: the slowest is taken as mean + 2 stdev";
  }
  if (out.basis != "rcp") out.note = "one number of samples, no spread between runs: the margin is all the slack";
  auto train_s = [&](double samples) {
    const double evals = samples < double(cadence.start) ? 0 : std::floor((samples - double(cadence.start)) / double(cadence.interval)) + 1;
    return samples / in.samples_per_s + evals * in.eval_s;
  };
  out.projected_minutes = train_s(out.rcp_mean_samples) / 60;
  out.slowest_minutes = train_s(out.rcp_max_samples) / 60;
  const double run_s = std::ceil((in.init_s + out.slowest_minutes * 60) * (1 + in.margin) / 60) * 60;
  out.run_walltime = format_walltime(std::max(60.0, run_s));
  out.job_walltime = resolve_walltimes(out.run_walltime, "", in.nexp).job;
  out.set_lines = {"--set experiment.run_walltime=" + out.run_walltime, "--set experiment.job_walltime=" + out.job_walltime};
}

ProbeOutcome run_probe(const ProbeOptions& o) {
  const Config real_cfg = load(o, {});
  const Plan real = build_plan(real_cfg, build_options(o));
  const double gbs = planned_global_batch(real_cfg, real.world_size);
  const std::string root = real.experiment.output_dir + "/probe";
  const std::string dir = root + "/" + make_datestamp();
  const std::string no_rcp = rcp_does_not_apply(real_cfg);
  const Plan plan = build_plan(load(o, probe_sets(o, real, real_cfg, gbs, dir, !no_rcp.empty() && o.samples <= 0)), build_options(o));

  RunOptions ro;
  ro.preflight = o.preflight ? PreflightPolicy::Warn : PreflightPolicy::Off;
  run_experiments(plan, ro);  // a probe ends at its walltime: the log is what counts

  ProbeOutcome out;
  SetState st;
  try {
    st = load_state(dir + "/state.json");
  } catch (const std::exception& e) {
    out.why_not = std::string("the probe run left no state: ") + e.what();
    return out;
  }
  const std::string log = st.experiments.empty() || st.experiments[0].log.empty() ? "" : dir + "/" + st.experiments[0].log;
  std::string text;
  try {
    text = read_file(log);
  } catch (const std::exception& e) {
    out.why_not = "the probe run wrote no log: " + (log.empty() ? std::string("none recorded") : std::string(e.what()));
    return out;
  }
  const Throughput t = measure_throughput(text, o.warmup);
  if (!t.ok) {
    out.why_not = log + ": " + t.why_not;
    return out;
  }
  ProbeProjection& p = out.projection;
  p.measured_at = utc_now();
  p.config_name = real.config_name;
  p.world_size = real.world_size;
  p.global_batch = gbs;
  p.log = log;
  p.method = t.method;
  p.samples_per_s = t.samples_per_s;
  p.measured = t.measured;
  p.dropped = t.dropped;
  p.init_s = std::max(0.0, t.init_s);
  p.eval_s = t.eval_s;
  ProbeInputs in;
  in.samples_per_s = t.samples_per_s;
  in.init_s = p.init_s;
  in.eval_s = t.eval_s;
  in.global_batch = gbs;
  in.eval_start_cfg = real_cfg.integer("benchmark.eval_start_samples");
  in.eval_interval_cfg = real_cfg.integer("benchmark.eval_interval_samples");
  in.nexp = real.experiment.nexp;
  in.margin = o.margin;
  in.target = real_cfg.real("benchmark.target_accuracy");
  in.no_rcp = no_rcp;
  in.stated_samples = o.samples;
  in.converged_samples = t.converged_samples;
  project(in, p);
  if (t.evals == 0 && !p.rcp.empty())
    p.note += (p.note.empty() ? "" : "; ") + std::string("the probe saw no evaluation: their time is not in the projection");
  out.measured = true;
  out.file = probe_file(real.experiment.output_dir);
  write_file_atomic(out.file, p.to_json().dump(2) + "\n");
  return out;
}

}  // namespace bert::harness
