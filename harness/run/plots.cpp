#include "harness/run/plots.h"

#include <algorithm>
#include <sstream>

#include <sys/wait.h>

#include "process/capture.h"
#include "harness/run/output_tree.h"
#include "harness/run/summary.h"

namespace bert::harness {

using results::Olympic;

std::vector<Olympic> olympic_roles(const std::vector<RunTime>& times, int dropped) {
  std::vector<std::optional<double>> minutes;
  for (const auto& t : times) minutes.push_back(t.minutes);
  minutes.resize(times.size() + size_t(std::max(dropped, 0)));  // the failed runs: no time
  std::vector<Olympic> roles = results::olympic_mean(minutes).roles;
  roles.resize(times.size());
  return roles;
}

namespace {

// A gnuplot single-quoted string (not std::quoted, which ADL would pick for a non-const string).
std::string gp_string(const std::string& s) { return "'" + s + "'"; }

// The third column of time_to_train.dat.
const char* role_word(Olympic o) {
  switch (o) {
    case Olympic::Counted: return "counted";
    case Olympic::DroppedFastest: return "fastest";
    case Olympic::DroppedSlowest: return "slowest";
    default: return "no_mean";
  }
}

std::string accuracy_script(const std::vector<RunCurve>& curves, double target, const std::string& term,
                            const std::string& ext) {
  std::ostringstream g;
  g << "reset\nset terminal " << term << "\n";  // reset: no setting leaks from the previous plot
  g << "set output " << gp_string("accuracy." + ext) << "\n";
  g << "set title 'Eval accuracy vs samples'\nset xlabel 'samples'\nset ylabel 'eval accuracy'\n"
       "set key below\nset grid\nset format x '%.1s%c'\n";  // key below: it never covers a point
  // Autoscaling puts the extreme points on the frame, where they vanish: keep every point and the
  // target line inside.
  g << "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n";
  g << "plot ";
  for (const auto& c : curves)
    if (!c.evals.empty())
      g << gp_string("accuracy_" + std::to_string(c.index) + ".dat") << " using 1:2 with linespoints title 'run "
        << c.index << "', ";
  g << target << " with lines dashtype 2 linecolor rgb 'red' title 'target " << target << "'\n";
  return g.str();
}

// One point series of the time-to-train plot: the runs with role word `word`.
std::string time_series(const std::string& word, int pointtype, const std::string& title) {
  return "'time_to_train.dat' using 1:(strcol(3) eq '" + word + "' ? $2 : 1/0) with points pointtype " +
         std::to_string(pointtype) + " pointsize 1.5 title " + gp_string(title);
}

std::string time_script(const std::vector<RunTime>& times, const std::vector<Olympic>& roles, int dropped,
                        std::optional<double> olympic, const std::string& term, const std::string& ext) {
  auto has = [&](Olympic o) { return std::find(roles.begin(), roles.end(), o) != roles.end(); };
  std::vector<std::string> series;
  std::string title;
  std::optional<double> mean = olympic;
  std::string mean_title;
  if (has(Olympic::Counted)) {
    title = "Time to train per run (filled: counted in the olympic mean)";
    series.push_back(time_series("counted", 7, "counted in the olympic mean"));
    if (has(Olympic::DroppedFastest)) series.push_back(time_series("fastest", 6, "dropped: fastest"));
    if (has(Olympic::DroppedSlowest)) series.push_back(time_series("slowest", 4, "dropped: slowest"));
    if (mean) mean_title = "olympic mean " + format_minutes(mean);
  } else {
    title = "Time to train per run: no olympic mean (it needs 3 runs, at most 1 failed)";
    series.push_back(time_series("no_mean", 7, "run"));
    double sum = 0;
    for (const auto& t : times) sum += t.minutes;
    mean = sum / double(times.size());
    mean_title = "plain mean " + format_minutes(mean) + " (not an MLPerf score)";
  }
  if (dropped > 0) title += ", " + std::to_string(dropped) + " failed run(s) not shown";
  std::ostringstream g;
  g << "reset\nset terminal " << term << "\nset output " << gp_string("time_to_train." + ext) << "\n";
  g << "set title " << gp_string(title) << "\nset xlabel 'run'\nset ylabel 'minutes'\nset key below\n"
       "set xtics 1\nset offsets 0.5, 0.5, graph 0.1, 0\nset yrange [0:*]\n";
  g << "plot ";
  for (size_t i = 0; i < series.size(); ++i) g << (i ? ", " : "") << series[i];
  if (mean) g << ", " << *mean << " with lines dashtype 2 title " << gp_string(mean_title);
  g << "\n";
  return g.str();
}

}  // namespace

std::string run_gnuplot(const std::string& dir, const std::string& script) {
  Captured c = run_capture({{"sh", "-c", "cd \"$1\" && exec gnuplot \"$2\"", "sh", dir, script}, {}}, 60);
  if (c.ok()) return "";
  bool missing = c.started && WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 127;
  return missing ? "gnuplot not found: plots not rendered (data and " + script + " are in " + dir + ")"
                 : "gnuplot failed: " + c.describe();
}

PlotResult render_plots(const std::string& dir, const std::vector<RunCurve>& curves, const std::vector<RunTime>& times,
                        int dropped, std::optional<double> olympic_minutes, double target) {
  PlotResult res;
  if (curves.empty()) {
    res.note = "No result files to plot.";
    return res;
  }
  for (const auto& c : curves) {
    std::ostringstream d;
    d << "# samples eval_accuracy (run " << c.index << ")\n";
    for (const auto& e : c.evals) d << e.samples << " " << e.accuracy << "\n";
    write_file_atomic(dir + "/accuracy_" + std::to_string(c.index) + ".dat", d.str());
  }
  const std::vector<Olympic> roles = olympic_roles(times, dropped);
  std::ostringstream t;
  t << "# run minutes part-in-the-olympic-mean (counted; fastest, slowest: dropped; no_mean: the set has none)\n";
  for (size_t i = 0; i < times.size(); ++i)
    t << times[i].index << " " << times[i].minutes << " " << role_word(roles[i]) << "\n";
  write_file_atomic(dir + "/time_to_train.dat", t.str());
  const bool have_times = !times.empty();
  std::string gp;
  for (auto [term, ext] : {std::pair<std::string, std::string>{"svg size 900,540 dynamic", "svg"},
                           {"pngcairo size 900,540", "png"}}) {
    gp += accuracy_script(curves, target, term, ext);
    if (have_times) gp += time_script(times, roles, dropped, olympic_minutes, term, ext);
  }
  write_file_atomic(dir + "/plots.gp", gp);
  res.note = run_gnuplot(dir, "plots.gp");
  if (!res.note.empty()) return res;
  for (std::string ext : {"svg", "png"}) {
    res.images.push_back("accuracy." + ext);
    if (have_times) res.images.push_back("time_to_train." + ext);
  }
  return res;
}

}  // namespace bert::harness
