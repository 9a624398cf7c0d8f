#include "harness/run/plots.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include <sys/wait.h>

#include "harness/run/capture.h"
#include "harness/run/output_tree.h"

namespace bert::harness {

std::vector<size_t> olympic_window(const std::vector<RunTime>& times, int dropped) {
  std::vector<size_t> order(times.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return times[a].minutes < times[b].minutes; });
  // Same slice as the result summarizer: [1 : n - (1 - dropped)].
  size_t n = order.size();
  size_t end = dropped >= 1 ? n : (n >= 1 ? n - 1 : 0);
  if (n < 2 || end <= 1) return {};
  return std::vector<size_t>(order.begin() + 1, order.begin() + long(end));
}

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string script(const std::vector<RunCurve>& curves, bool have_times, std::optional<double> olympic,
                   double target, const std::string& term, const std::string& ext) {
  std::ostringstream g;
  g << "reset\nset terminal " << term << "\n";  // reset: no setting leaks from the previous plot
  g << "set output " << quoted("accuracy." + ext) << "\n";
  g << "set title 'Eval accuracy vs samples'\nset xlabel 'samples'\nset ylabel 'eval accuracy'\n"
       "set key bottom right\nset grid\n";
  g << "plot ";
  for (const auto& c : curves)
    g << quoted("accuracy_" + std::to_string(c.index) + ".dat") << " using 1:2 with linespoints title 'run "
      << c.index << "', ";
  g << target << " with lines dashtype 2 linecolor rgb 'red' title 'target " << target << "'\n";
  if (have_times) {
    g << "reset\nset output " << quoted("time_to_train." + ext) << "\n";
    g << "set title 'Time to train per run (filled: olympic window)'\nset xlabel 'run'\n"
         "set ylabel 'minutes'\nset key top right\nset xtics 1\nset offsets 0.5, 0.5, 0, 0\n"
         "set yrange [0:*]\n";
    g << "plot 'time_to_train.dat' using 1:($3 == 1 ? $2 : 1/0) with points pointtype 7 pointsize 1.5 "
         "title 'in the olympic window', "
         "'' using 1:($3 == 0 ? $2 : 1/0) with points pointtype 6 pointsize 1.5 title 'dropped (fastest/slowest)'";
    if (olympic) g << ", " << *olympic << " with lines dashtype 2 title 'olympic mean " << *olympic << " min'";
    g << "\n";
  }
  return g.str();
}

}  // namespace

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
  auto window = olympic_window(times, dropped);
  std::ostringstream t;
  t << "# run minutes in_olympic_window\n";
  for (size_t i = 0; i < times.size(); ++i)
    t << times[i].index << " " << times[i].minutes << " "
      << (std::find(window.begin(), window.end(), i) != window.end() ? 1 : 0) << "\n";
  write_file_atomic(dir + "/time_to_train.dat", t.str());
  const bool have_times = !times.empty();
  std::string gp = script(curves, have_times, olympic_minutes, target, "svg size 900,540 dynamic", "svg") +
                   script(curves, have_times, olympic_minutes, target, "pngcairo size 900,540", "png");
  write_file_atomic(dir + "/plots.gp", gp);
  Captured c = run_capture({{"sh", "-c", "cd \"$1\" && exec gnuplot plots.gp", "sh", dir}, {}}, 60);
  if (!c.ok()) {
    bool missing = c.started && WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 127;
    res.note = missing ? "gnuplot not found: plots not rendered (data and plots.gp are in " + dir + ")"
                       : "gnuplot failed: " + c.describe();
    return res;
  }
  for (std::string ext : {"svg", "png"}) {
    res.images.push_back("accuracy." + ext);
    if (have_times) res.images.push_back("time_to_train." + ext);
  }
  return res;
}

}  // namespace bert::harness
