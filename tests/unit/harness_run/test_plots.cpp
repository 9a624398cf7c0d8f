#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "harness/run/output_tree.h"
#include "harness/run/plots.h"

using namespace bert::harness;
using O = bert::results::Olympic;
namespace fs = std::filesystem;

namespace {

// A fresh plots directory under the test's working directory, removed at scope exit.
struct PlotsDir {
  std::string dir;
  explicit PlotsDir(const std::string& name) : dir("plots_test_" + name) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~PlotsDir() { fs::remove_all(dir); }
  std::string read(const std::string& f) const { return read_file(dir + "/" + f); }
};

// The ranges gnuplot gives the first (accuracy) plot of plots.gp: x min, x max, y min, y max.
std::vector<double> accuracy_ranges(const PlotsDir& d) {
  std::string gp = d.read("plots.gp");
  const size_t second = gp.find("reset\n", 1);
  std::istringstream in(gp.substr(0, second));
  std::string probe;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("set terminal")) line = "set terminal unknown";
    if (line.starts_with("set output")) continue;
    probe += line + "\n";
  }
  probe += "set print '-'\nprint GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX\n";
  write_file_atomic(d.dir + "/probe.gp", probe);
  std::FILE* p = popen(("cd " + d.dir + " && gnuplot probe.gp 2>/dev/null").c_str(), "r");
  REQUIRE(p);
  std::vector<double> r(4);
  const int n = std::fscanf(p, "%lf %lf %lf %lf", &r[0], &r[1], &r[2], &r[3]);
  pclose(p);
  REQUIRE(n == 4);
  return r;
}

}  // namespace

TEST_CASE("olympic roles: the fastest and the slowest are dropped") {
  std::vector<RunTime> t = {{1, 5.0}, {2, 3.0}, {3, 9.0}, {4, 4.0}, {5, 6.0}};
  CHECK(olympic_roles(t, 0) == std::vector<O>{O::Counted, O::DroppedFastest, O::DroppedSlowest, O::Counted, O::Counted});
}

TEST_CASE("olympic roles: with one failed run only the fastest goes (the failed run counts as the slowest)") {
  std::vector<RunTime> t = {{1, 5.0}, {2, 3.0}, {3, 9.0}};
  CHECK(olympic_roles(t, 1) == std::vector<O>{O::Counted, O::DroppedFastest, O::Counted});
}

TEST_CASE("olympic roles: a set without an olympic mean drops no run") {
  CHECK(olympic_roles({}, 0).empty());
  CHECK(olympic_roles({{1, 2.0}}, 0) == std::vector<O>{O::NoMean});
  CHECK(olympic_roles({{1, 2.0}, {2, 3.0}}, 0) == std::vector<O>{O::NoMean, O::NoMean});
  CHECK(olympic_roles({{1, 2.0}, {2, 3.0}, {3, 4.0}}, 2) == std::vector<O>{O::NoMean, O::NoMean, O::NoMean});
}

TEST_CASE("time-to-train plot of a 2-run set: no run labelled dropped, no empty olympic window, the plain mean") {
  PlotsDir d("two_runs");
  std::vector<RunCurve> curves = {{1, {{150000, 0.5}, {300000, 0.73}}}, {2, {{150000, 0.6}, {300000, 0.74}}}};
  render_plots(d.dir, curves, {{1, 3.0}, {2, 5.0}}, 0, std::nullopt, 0.72);
  CHECK(d.read("time_to_train.dat").find("1 3 no_mean\n2 5 no_mean\n") != std::string::npos);
  const std::string gp = d.read("plots.gp");
  INFO(gp);
  CHECK(gp.find("dropped") == std::string::npos);
  CHECK(gp.find("olympic window") == std::string::npos);
  CHECK(gp.find("set title 'Time to train per run: no olympic mean (it needs 3 runs, at most 1 failed)'") !=
        std::string::npos);
  CHECK(gp.find("4 with lines dashtype 2 title 'plain mean 4.000 min (not an MLPerf score)'") != std::string::npos);
}

TEST_CASE("time-to-train plot of a 5-run set marks what the olympic mean counted and dropped") {
  PlotsDir d("five_runs");
  std::vector<RunCurve> curves;
  for (int i = 1; i <= 6; ++i) curves.push_back({i, {{150000, 0.73}}});
  render_plots(d.dir, curves, {{1, 5.0}, {2, 3.0}, {3, 9.0}, {4, 4.0}, {5, 6.0}}, 1, 6.0, 0.72);
  CHECK(d.read("time_to_train.dat").find("1 5 counted\n2 3 fastest\n3 9 counted\n4 4 counted\n5 6 counted\n") !=
        std::string::npos);
  const std::string gp = d.read("plots.gp");
  INFO(gp);
  CHECK(gp.find("title 'dropped: fastest'") != std::string::npos);
  CHECK(gp.find("dropped: slowest") == std::string::npos);  // the failed run took that place
  CHECK(gp.find("1 failed run(s) not shown") != std::string::npos);
  CHECK(gp.find("title 'olympic mean 6.000 min'") != std::string::npos);
}

TEST_CASE("accuracy plot: every eval point inside the frame, with the target line") {
  PlotsDir d("accuracy");
  // The extreme points are where autoscaling puts the frame; run 3 has no eval point at all.
  std::vector<RunCurve> curves = {{1, {{150000, 0.11}, {300000, 0.25}}}, {2, {{150000, 0.1}}}, {3, {}}};
  PlotResult r = render_plots(d.dir, curves, {}, 0, std::nullopt, 0.72);
  REQUIRE_MESSAGE(!r.images.empty(), r.note);
  CHECK(d.read("accuracy_1.dat") == "# samples eval_accuracy (run 1)\n150000 0.11\n300000 0.25\n");
  CHECK(d.read("plots.gp").find("accuracy_3.dat") == std::string::npos);
  const auto rg = accuracy_ranges(d);
  for (const auto& c : curves)
    for (const auto& e : c.evals) {
      CAPTURE(e.samples);
      CAPTURE(e.accuracy);
      CHECK(rg[0] < double(e.samples));
      CHECK(double(e.samples) < rg[1]);
      CHECK(rg[2] < e.accuracy);
      CHECK(e.accuracy < rg[3]);
    }
  CHECK(rg[2] < 0.72);
  CHECK(0.72 < rg[3]);
}
