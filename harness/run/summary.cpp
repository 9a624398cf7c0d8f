#include "harness/run/summary.h"

#include <filesystem>
#include <sstream>

#include <signal.h>
#include <string.h>

#include "process/sha256.h"

namespace bert::harness {

std::string format_minutes(const std::optional<double>& m) {
  if (!m) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f min", *m);
  return buf;
}

std::optional<double> short_set_mean_minutes(const results::ScoreResult& s) {
  double sum = 0;
  int n = 0;
  for (const auto& r : s.runs)
    if (r.valid && r.minutes) {
      sum += *r.minutes;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return sum / n;
}

namespace {

std::string cell(std::string s) {
  for (auto& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s;
}

std::string cache_cell(const std::vector<bool>& v) {
  if (v.empty()) return "-";
  size_t ok = 0;
  for (bool b : v) ok += b;
  return std::to_string(ok) + "/" + std::to_string(v.size()) + " nodes";
}

// The scored run of experiment `index`, by its result file's name.
const results::RunScore* scored_run(const SummaryInput& in, int index) {
  if (!in.score) return nullptr;
  const std::string name = std::filesystem::path(in.tree->result(index)).filename().string();
  for (const auto& r : in.score->runs)
    if (r.file == name) return &r;
  return nullptr;
}

// The olympic-mean cell: counted, dropped (fastest/slowest/failed), and why an invalid run failed.
std::string olympic_cell(const results::RunScore* r) {
  if (!r) return "-";
  std::string s(results::to_string(r->olympic));
  if (r->compliant && !r->valid) s += ": invalid, " + r->failure;
  return s;
}

std::string fmt_joules(double j) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f J (%.4f kWh)", j, j / 3.6e6);
  return buf;
}

// Energy to train per run (the official summarizer's), its olympic mean, and every power problem.
void energy_section(const SummaryInput& in, std::ostringstream& md) {
  const PowerPlan& p = in.plan->power;
  md << "\n## Energy\n\n- measured: " << p.source << " every " << p.interval_s << " s on every node, " << enum_name(p.measurement_type, power::kMeasurementTypeNames)
     << " readings, conversion_eff " << p.conversion_eff << (p.conversion_eff_given ? "" : " (default, not a documented PSU efficiency)")
     << (p.node_level ? "" : "; the GPUs only, not node-level: not an MLPerf power result") << "\n";
  if (!in.score || !in.score->has_power) {
    md << "- no power logs were scored\n";
    return;
  }
  const auto& s = *in.score;
  md << "- energy (olympic mean x scaling): " << (s.energy_j ? fmt_joules(*s.energy_j) : std::string("none")) << "\n";
  for (const auto& r : s.runs)
    if (r.energy_j) md << "- " << r.file << ": " << fmt_joules(*r.energy_j) << "\n";
  for (const auto& n : s.energy_notices) md << "- " << cell(n) << "\n";
  for (const auto& e : in.state->experiments)
    for (const std::string& err : e.power_errors) md << "- experiment " << e.index << ": power error: " << cell(err) << "\n";
}

}  // namespace

std::string render_summary(const SummaryInput& in) {
  const Plan& plan = *in.plan;
  const OutputTree& t = *in.tree;
  const SetState& st = *in.state;
  std::ostringstream md;
  md << "# MLPerf Training BERT: " << st.system << "\n\n";
  int finished = 0;
  for (const auto& e : st.experiments) finished += is_finished(e.status);
  if (st.interrupted)
    md << "**The set was interrupted** (" << (st.interrupt_signal ? strsignal(st.interrupt_signal) : "signal")
       << ") after " << finished << " of " << st.nexp << " experiments; continue it with "
       << "`harness run --resume " << t.root << "`.\n\n";
  else if (finished < st.nexp)
    md << "**The set is incomplete**: " << finished << " of " << st.nexp << " experiments finished.\n\n";
  md << "- system file: `" << plan.system_file << "`, config `" << plan.config_name << "`, launcher `"
     << plan.launcher << "`, " << plan.num_nodes << " node(s) x " << plan.ranks_per_node << " rank(s)\n";
  md << "- ruleset " << plan.experiment.ruleset << ", " << enum_name(plan.experiment.division, kDivisionNames) << " division\n";
  md << "- logs: `" << t.logs_dir() << "/" << st.datestamp << "_<NN>.log`\n";
  md << "- results: `" << t.results_dir() << "/`, system description: `" << t.systems_json() << "`\n\n";

  md << "## Runs\n\n| # | seed | status | time to train | samples | compliance | olympic mean | cache clear | log |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : st.experiments) {
    std::string status = to_string(e.status);
    if (e.status == ExpStatus::Failed && !e.message.empty()) status += ": " + e.message;
    std::string comp = !e.compliant ? "-" : *e.compliant ? "PASS" : "FAIL: " + e.compliance_failure;
    char samples[64] = "-";
    if (e.samples && *e.samples < 1e9) std::snprintf(samples, sizeof(samples), "%.0f", *e.samples);
    md << "| " << e.index << " | " << e.seed << " | " << cell(status) << " | " << format_minutes(e.ttt_minutes)
       << " | " << samples << " | " << cell(comp.substr(0, 200)) << " | " << cell(olympic_cell(scored_run(in, e.index)))
       << " | " << cache_cell(e.cache_cleared) << " | "
       << (e.log.empty() ? "-" : "`" + e.log + "`") << " |\n";
  }

  md << "\n## Score\n\n";
  if (in.score) {
    const auto& s = *in.score;
    md << "- olympic mean time to train: " << format_minutes(s.olympic_minutes) << "\n";
    md << "- score: " << format_minutes(s.score_minutes);
    if (s.scaling_factor != 1.0) md << " (scaling factor " << s.scaling_factor << ")";
    if (!s.score_minutes)
      if (const auto mean = short_set_mean_minutes(s))
        md << "\n- plain mean time to train of the compliant runs (not an MLPerf score): " << format_minutes(*mean);
    md << "\n- failed runs (not compliant, or no valid time to train): " << s.dropped << "\n";
    const auto& r = s.rcp;
    if (r.checked)
      md << "- RCP: **" << (r.passed ? "PASS" : "FAIL") << "** (" << r.message << "; global batch size "
         << r.batch_size << ", normalization factor " << r.normalization_factor << ")\n";
    else
      md << "- RCP: not checked" << (r.message.empty() ? "" : " (" + r.message + ")") << "\n";
    for (const auto& n : s.notices) md << "- " << n << "\n";
    if (st.nexp < 10)
      md << "- note: MLPerf requires 10 runs for BERT; this set has " << st.nexp
         << ", so it is not a submittable result.\n";
  } else {
    md << "No score: " << (in.score_error.empty() ? "no result files" : in.score_error) << "\n";
  }

  if (!in.plan->power.source.empty()) energy_section(in, md);

  md << in.extra_md;
  md << "\n## Plots\n\n";
  for (const PlotResult* plots : {&in.plots, &in.power_plots}) {
    if (plots->images.empty() && !plots->note.empty()) md << plots->note << "\n";
    for (const auto& img : plots->images)
      if (img.size() > 4 && img.substr(img.size() - 4) == ".svg") md << "![" << img << "](plots/" << img << ")\n\n";
    for (const auto& img : plots->images)
      if (img.size() > 4 && img.substr(img.size() - 4) == ".png") md << "- PNG: `plots/" << img << "`\n";
  }

  md << "\n## Result files (sha256)\n\n";
  bool any = false;
  for (const auto& e : st.experiments) {
    std::string path = t.result(e.index);
    if (!std::filesystem::exists(path)) continue;
    any = true;
    std::string sum;
    try {
      sum = sha256_file(path);
    } catch (const std::exception& ex) {
      sum = ex.what();
    }
    md << "    " << sum << "  " << std::filesystem::relative(path, t.root).string() << "\n";
  }
  if (!any) md << "None written.\n";

  if (!in.preflight.empty()) {
    md << "\n## Preflight\n\n";
    for (const auto& p : in.preflight) md << "- " << cell(p) << "\n";
  }
  return md.str();
}

}  // namespace bert::harness
