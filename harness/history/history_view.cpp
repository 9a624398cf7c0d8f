#include "harness/history/history_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "harness/history/html_page.h"
#include "harness/history/spread.h"
#include "harness/history/svg_chart.h"

namespace bert::harness::history {

namespace {

std::optional<Spread> run_spread(const SetRecord& s, std::optional<double> RunRecord::*m) {
  std::vector<double> v;
  for (const RunRecord& r : s.runs)
    if (r.*m) v.push_back(*(r.*m));
  return spread_of(v);
}

int converged(const SetRecord& s) {
  return int(std::count_if(s.runs.begin(), s.runs.end(), [](const RunRecord& r) { return r.status == "converged"; }));
}

std::string ttt_text(const SetRecord& s) {
  if (!s.time_to_train()) return "n/a";
  return fmt::format("{:.4g}{}", *s.time_to_train(), s.score_min ? "" : "*");
}

std::string opt_text(const std::optional<Spread>& s, const char* f) {
  return s ? fmt::format(fmt::runtime(f), s->median) : "-";
}

}  // namespace

std::string references_summary(const SetRecord& s) {
  if (s.references.empty()) return "-";
  const auto met = std::count_if(s.references.begin(), s.references.end(), [](const ReferenceVerdict& v) { return v.verdict == "met"; });
  return fmt::format("{} {}/{}", size_t(met) == s.references.size() ? "met" : "MISSED", met, s.references.size());
}

std::string format_history(const std::vector<SetRecord>& sets) {
  if (sets.empty()) return "no sets recorded\n";
  std::string o = fmt::format("{:>4}  {:<17}  {:<20}  {:>5}  {:<22}  {:<10}  {:>5}  {:>9}  {:>10}  {:>10}  {:>8}  {:<11}  {:<8}  {}\n", "id",
                              "recorded (UTC)", "system", "n x r", "accelerator", "backend", "conv", "ttt [min]", "samples/s",
                              "energy [J]", "RCP", "references", "origin", "folder");
  bool plain = false;
  for (const SetRecord& s : sets) {
    plain = plain || (!s.score_min && s.mean_min);
    std::string when = s.recorded_at.substr(0, 16);
    std::replace(when.begin(), when.end(), 'T', ' ');
    o += fmt::format("{:>4}  {:<17}  {:<20}  {:>5}  {:<22}  {:<10}  {:>5}  {:>9}  {:>10}  {:>10}  {:>8}  {:<11}  {:<8}  {}\n", s.id, when,
                     s.system_name.substr(0, 20), fmt::format("{}x{}", s.nodes, s.ranks_per_node), s.accelerator.substr(0, 22),
                     (s.backend + (s.precision.empty() ? "" : " " + s.precision)).substr(0, 10),
                     fmt::format("{}/{}", converged(s), s.runs.size()), ttt_text(s),
                     opt_text(run_spread(s, &RunRecord::samples_per_s), "{:.5g}"), s.energy_j ? fmt::format("{:.4g}", *s.energy_j) : "-",
                     s.rcp_word(), references_summary(s), s.origin, s.output_dir);
  }
  if (plain) o += "* plain mean of the compliant runs: the set is too small for an MLPerf score (olympic mean)\n";
  o += "samples/s: the median over the set's runs; conv: converged runs of all\n";
  return o;
}

ojson history_json(const std::vector<SetRecord>& sets, const std::string& db_path) {
  ojson list = ojson::array();
  for (const SetRecord& s : sets) list.push_back(to_json(s));
  return ojson{{"database", db_path}, {"sets", list}};
}

std::string history_html(const std::vector<SetRecord>& sets, const std::string& db_path) {
  std::map<std::string, std::vector<const SetRecord*>> by_system;
  for (const SetRecord& s : sets) by_system[s.system_name].push_back(&s);
  std::string body = "<h1>MLPerf Training BERT: results history</h1>\n";
  body += fmt::format("<p class=\"note\">{} set(s) of {} system(s) from {}. Time to train: the MLPerf score where the set has one, "
                      "else the plain mean of its compliant runs (marked *).</p>\n",
                      sets.size(), by_system.size(), html_escape(db_path));
  for (const auto& [system, list] : by_system) {
    std::vector<const SetRecord*> oldest_first(list.rbegin(), list.rend());
    ChartSpec ttt{"trend_ttt_" + system, system + ": time to train per set", "set", "minutes", {}, {}, {}, {}};
    ChartSpec thr{"trend_thr_" + system, system + ": samples per second per set (median of the runs)", "set", "samples/s", {}, {}, {}, {}};
    ChartSeries set_ttt{"time to train of the set", {}, {}}, run_min{"fastest run", {}, {}}, run_max{"slowest run", {}, {}};
    ChartSeries med_thr{"samples/s", {}, {}};
    for (size_t i = 0; i < oldest_first.size(); ++i) {
      const SetRecord& s = *oldest_first[i];
      const std::string name = fmt::format("#{} {}", s.id, s.recorded_at.substr(0, 10));
      ttt.x_names.push_back(name);
      thr.x_names.push_back(name);
      if (s.time_to_train()) set_ttt.x.push_back(double(i)), set_ttt.y.push_back(*s.time_to_train());
      if (auto sp = run_spread(s, &RunRecord::ttt_min)) {
        run_min.x.push_back(double(i)), run_min.y.push_back(sp->min);
        run_max.x.push_back(double(i)), run_max.y.push_back(sp->max);
      }
      if (auto sp = run_spread(s, &RunRecord::samples_per_s)) med_thr.x.push_back(double(i)), med_thr.y.push_back(sp->median);
    }
    ttt.series = {set_ttt, run_min, run_max};
    thr.series = {med_thr};
    body += "<h2>" + html_escape(system) + "</h2>\n" + svg_line_chart(ttt) + svg_line_chart(thr);
    body += "<table class=\"sets\"><tr><th>id</th><th>recorded (UTC)</th><th>nodes x ranks</th><th>accelerator</th><th>backend</th>"
            "<th>runs converged</th><th>time to train [min]</th><th>RCP</th><th>references</th><th>origin</th><th>folder</th></tr>\n";
    for (const SetRecord* s : list)
      body += fmt::format("<tr class=\"set\"><td>{}</td><td>{}</td><td>{}x{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td class=\"num\">{}</td>"
                          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                          s->id, html_escape(s->recorded_at), s->nodes, s->ranks_per_node, html_escape(s->accelerator),
                          html_escape(s->backend + " " + s->precision), converged(*s), s->runs.size(), ttt_text(*s), s->rcp_word(),
                          html_escape(references_summary(*s)), html_escape(s->origin), html_escape(s->output_dir));
    body += "</table>\n";
  }
  if (sets.empty()) body += "<p>No sets recorded.</p>\n";
  return html_page("BERT results history", body);
}

}  // namespace bert::harness::history
