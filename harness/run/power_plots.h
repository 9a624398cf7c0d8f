// summary.md's power plots: one per node, its watts over the seconds since each run's
// power_measurement_start, one line per run (plots/power_node_<k>.svg and .png), from the runs'
// official power logs (results/<system>/bert/power/result_<i>/node_<k>.txt).
#pragma once
#include <string>

#include "harness/run/plots.h"

namespace bert::harness {

PlotResult render_power_plots(const std::string& plots_dir, const std::string& power_dir, int nexp, int nodes);

}  // namespace bert::harness
