#include "harness/history/report_html.h"

#include <filesystem>

#include <fmt/format.h>

#include "harness/config/reference_figures.h"
#include "harness/history/html_page.h"
#include "harness/history/power_logs.h"
#include "harness/history/run_log.h"
#include "harness/history/svg_chart.h"
#include "results/check.h"
#include "results/result_files.h"

namespace bert::harness::history {
namespace fs = std::filesystem;

namespace {

std::string cell(const std::optional<double>& v, const char* f = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(f), *v) : "-";
}
std::string e(std::string_view s) { return html_escape(s); }

std::string css_word(const std::string& w) {
  if (w == "PASS" || w == "met" || w == "converged") return "pass";
  if (w == "FAIL" || w == "missed" || w == "failed" || w == "not measured") return "fail";
  return "";
}

std::string identity(const SetRecord& s) {
  std::string o = "<table class=\"identity\">\n";
  auto row = [&](const char* k, const std::string& v) { o += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", k, e(v.empty() ? "-" : v)); };
  row("system", s.system_name + (s.config_name.empty() || s.config_name == s.system_name ? "" : " (config " + s.config_name + ")"));
  row("system file", s.system_file + (s.system_file_sha256.empty() ? "" : "  sha256 " + s.system_file_sha256));
  row("harness commit", s.harness_commit.empty() ? "" : s.harness_commit + (s.harness_dirty ? " (with uncommitted changes)" : ""));
  row("nodes x ranks", fmt::format("{} x {}", s.nodes, s.ranks_per_node));
  row("accelerator", s.accelerator);
  row("backend, precision", s.backend + (s.precision.empty() ? "" : ", " + s.precision));
  row("container image", s.container_image.empty() ? "none (bare metal)" : s.container_image);
  row("ruleset, division", s.ruleset + (s.division.empty() ? "" : ", " + s.division));
  row("output folder", s.output_dir);
  row("recorded", s.recorded_at + " (" + s.origin + ")");
  return o + "</table>\n";
}

std::string score_section(const SetRecord& s) {
  std::string o = "<h2>Score</h2>\n<ul>\n";
  o += fmt::format("<li>time to train: <b>{}</b> ({})</li>\n", s.time_to_train() ? fmt::format("{:.4f} min", *s.time_to_train()) : "n/a",
                   e(s.time_basis()));
  o += fmt::format("<li>RCP: <span class=\"{}\">{}</span> {}</li>\n", css_word(s.rcp_word()), s.rcp_word(),
                   s.rcp_message.empty() ? "" : "(" + e(s.rcp_message) + ")");
  if (s.energy_j) o += fmt::format("<li>energy: {:.6g} J</li>\n", *s.energy_j);
  o += "</ul>\n";
  if (!s.references.empty()) {
    o += "<h2>References</h2>\n<table id=\"references\"><tr><th>figure</th><th>value</th><th>target</th><th>tolerance</th>"
         "<th>which figure</th><th>verdict</th></tr>\n";
    for (const ReferenceVerdict& v : s.references) {
      const ReferenceFigure* f = find_reference_figure(v.figure);
      o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:g} {}</td><td class=\"num\">{}{:g}%</td>"
                       "<td>{}</td><td class=\"{}\">{}</td></tr>\n",
                       e(v.figure), cell(v.value, "{:.6g}"), v.target, f ? e(f->unit) : "", f && f->lower_is_better ? "+" : "-",
                       v.tolerance * 100, e(v.basis), css_word(v.verdict), e(v.verdict));
    }
    o += "</table>\n";
  }
  return o;
}

std::string runs_table(const SetRecord& s) {
  std::string o = "<h2>Runs</h2>\n<table id=\"runs\"><tr><th>#</th><th>seed</th><th>status</th><th>time to train [min]</th>"
                  "<th>samples to converge</th><th>samples/s</th><th>energy [J]</th><th>compliance</th><th>olympic mean</th>"
                  "<th>result file</th></tr>\n";
  for (const RunRecord& r : s.runs)
    o += fmt::format("<tr class=\"run\"><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td></tr>\n",
                     r.index, r.seed ? std::to_string(*r.seed) : "-", css_word(r.status), e(r.status), cell(r.ttt_min, "{:.4f}"),
                     cell(r.samples_to_converge, "{:.0f}"), cell(r.samples_per_s, "{:.5g}"), cell(r.energy_j, "{:.6g}"),
                     !r.compliant ? "" : *r.compliant ? "pass" : "fail", !r.compliant ? "-" : *r.compliant ? "PASS" : "FAIL",
                     e(r.olympic.empty() ? "-" : r.olympic), e(r.result_file.empty() ? "-" : r.result_file));
  return o + "</table>\n";
}

std::string binding_map(const Plan& plan) {
  std::string o = "<h2>Binding map</h2>\n<table id=\"binding\"><tr><th>node</th><th>global rank</th><th>local rank</th>"
                  "<th>cores</th><th>NUMA node (memory)</th><th>GPU</th><th>NIC</th></tr>\n";
  for (const NodePlan& n : plan.nodes)
    for (const RankPlan& r : n.ranks) {
      const auto& b = r.binding;
      std::string nics;
      for (const std::string& x : b.nics) nics += (nics.empty() ? "" : ", ") + x;
      if (!b.nic_locality.empty() && !nics.empty()) nics += " (" + b.nic_locality + ")";
      o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", e(n.hostname),
                       r.global_rank, r.local_rank, e(b.cpus.empty() ? "unbound" : b.cpus),
                       e((b.numa_node >= 0 ? std::to_string(b.numa_node) : std::string("-")) + (b.mems.empty() ? "" : " (" + b.mems + ")")),
                       b.gpu >= 0 ? e(std::to_string(b.gpu) + (b.gpu_busid.empty() ? "" : " " + b.gpu_busid)) : "-",
                       e(nics.empty() ? "-" : nics));
    }
  o += fmt::format("</table>\n<p class=\"note\">binding: cpu {}, mem {}, unit {}, nic {}</p>\n", e(plan.binding.cpu), e(plan.binding.mem),
                   e(plan.binding.unit), e(plan.binding.nic));
  return o;
}

struct RunDetail {
  const RunRecord* run;
  RunLog log;
  std::vector<PowerSeries> power;
  results::LogVerdict verdict;
  bool checked = false;
};

std::string compliance_section(const std::vector<RunDetail>& runs) {
  std::string o = "<h2>Compliance</h2>\n<table id=\"compliance\"><tr><th>run</th><th>verdict</th><th>failing lines</th></tr>\n";
  for (const RunDetail& d : runs) {
    if (!d.checked) continue;
    std::string lines;
    auto add = [&](const std::string& t) { lines += e(t) + "\n"; };
    if (!d.verdict.checker_error.empty()) add(d.verdict.checker_error);
    for (const results::Message& m : d.verdict.failures) add((m.key.empty() ? "" : m.key + ": ") + m.text);
    for (const std::string& p : d.verdict.parse_errors) add(p);
    o += fmt::format("<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n", e(d.run->result_file),
                     d.verdict.passed ? "pass" : "fail", d.verdict.passed ? "PASS" : "FAIL",
                     lines.empty() ? "-" : "<pre>" + lines + "</pre>");
  }
  return o + "</table>\n";
}

}  // namespace

std::string report_html(const SetRecord& s, const Plan* plan, double target_accuracy) {
  std::vector<RunDetail> details;
  for (const RunRecord& r : s.runs) {
    RunDetail d{&r, {}, {}, {}, false};
    if (!r.result_file.empty()) {
      const fs::path file = fs::path(s.results_dir) / r.result_file;
      try {
        d.log = read_run_log(results::read_file_bytes(file));
        results::CheckOptions co;
        co.ruleset = s.ruleset.empty() ? results::kDefaultRuleset : s.ruleset;
        d.verdict = results::check_log_file(file, co);
        d.checked = true;
      } catch (const std::exception& ex) {
        d.verdict.checker_error = ex.what();
        d.checked = true;
      }
      d.power = read_power_logs(s.results_dir, r.result_file, d.log.run_start_ms);
    }
    details.push_back(std::move(d));
  }

  std::string body = fmt::format("<h1>MLPerf Training BERT: {}</h1>\n", e(s.system_name));
  body += identity(s) + score_section(s) + runs_table(s);

  body += "<h2>Eval accuracy</h2>\n";
  ChartSpec acc{"accuracy", "Eval accuracy vs samples", "samples", "eval accuracy", {}, {}, {}, {}};
  if (target_accuracy > 0) acc.y_line = target_accuracy, acc.y_line_label = fmt::format("target {:g}", target_accuracy);
  ChartSpec thr{"throughput", "Throughput over the run", "minutes since run_start", "samples/s", {}, {}, {}, {}};
  for (const RunDetail& d : details) {
    ChartSeries a{fmt::format("run {}", d.run->index), {}, {}}, t{a.name, {}, {}};
    for (const EvalSample& p : d.log.evals) a.x.push_back(p.samples), a.y.push_back(p.accuracy);
    for (const ThroughputSample& p : d.log.throughput) t.x.push_back(p.minutes), t.y.push_back(p.samples_per_s);
    if (!a.x.empty()) acc.series.push_back(std::move(a));
    if (!t.x.empty()) thr.series.push_back(std::move(t));
  }
  body += acc.series.empty() ? "<p class=\"note\">No run logged an eval.</p>\n" : svg_line_chart(acc);
  body += "<h2>Throughput</h2>\n<p class=\"note\">Samples trained per second between consecutive evals (evals included).</p>\n";
  body += thr.series.empty() ? "<p class=\"note\">No run logged two evals.</p>\n" : svg_line_chart(thr);

  body += "<h2>Power</h2>\n";
  bool any_power = false;
  for (const RunDetail& d : details) {
    if (d.power.empty()) continue;
    any_power = true;
    ChartSpec p{fmt::format("power_{}", d.run->index), fmt::format("Power per node, run {} ({})", d.run->index, d.run->result_file),
                "minutes since run_start", "W", {}, {}, {}, {}};
    for (const PowerSeries& ps : d.power) p.series.push_back({ps.name, ps.minutes, ps.watts});
    body += svg_line_chart(p);
  }
  if (!any_power) body += "<p class=\"note\">No power logs (results/&lt;system&gt;/bert/power/) in this set.</p>\n";

  if (plan) body += binding_map(*plan);
  else body += "<h2>Binding map</h2>\n<p class=\"note\">Not run by this harness: no plan, no binding map.</p>\n";
  body += compliance_section(details);
  return html_page("BERT " + s.system_name + " " + s.datestamp, body);
}

}  // namespace bert::harness::history
