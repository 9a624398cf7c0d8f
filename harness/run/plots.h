// The two plots of summary.md, rendered by gnuplot (SVG and PNG) when it is installed:
// eval accuracy vs samples (one line per run) and time-to-train per run with the olympic window.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/run/progress.h"
#include "results/score.h"

namespace bert::harness {

struct RunCurve {
  int index = 0;                 // experiment number, 1-based
  std::vector<EvalPoint> evals;
};

struct RunTime {
  int index = 0;
  double minutes = 0;
};

struct PlotResult {
  std::vector<std::string> images;  // file names inside plots_dir
  std::string note;                 // why nothing was rendered ("gnuplot not found", its error)
};

// Each run's part in the olympic mean (results::olympic_mean): `times` are the valid runs, `dropped`
// the failed ones (no time; a failed run takes the slowest place).
std::vector<results::Olympic> olympic_roles(const std::vector<RunTime>& times, int dropped);

// Runs gnuplot on `script` inside `dir`; "" when it rendered, else why not (gnuplot missing, its error).
std::string run_gnuplot(const std::string& dir, const std::string& script);

// Writes the data files and plots.gp into plots_dir and runs gnuplot on it. Every eval point lies
// inside the accuracy plot's frame with the target line; the time-to-train plot marks what the
// olympic mean counted and dropped, or, when the set has no olympic mean, says so and shows the
// plain mean.
PlotResult render_plots(const std::string& plots_dir, const std::vector<RunCurve>& curves,
                        const std::vector<RunTime>& times, int dropped, std::optional<double> olympic_minutes,
                        double target_accuracy);

}  // namespace bert::harness
