#include "harness/run/power_plots.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/run/output_tree.h"
#include "results/log_parser.h"
#include "results/power.h"

namespace bert::harness {

PlotResult render_power_plots(const std::string& dir, const std::string& power_dir, int nexp, int nodes) {
  PlotResult res;
  try {
  std::string gp;
  std::vector<int> plotted;
  for (int k = 0; k < nodes; ++k) {
    std::vector<int> runs;
    for (int i = 0; i < nexp; ++i) {
      const std::string file = power_dir + "/result_" + std::to_string(i) + "/node_" + std::to_string(k) + ".txt";
      std::ifstream in(file, std::ios::binary);
      if (!in) continue;
      std::stringstream ss;
      ss << in.rdbuf();
      std::optional<double> start;
      std::ostringstream d;
      d << "# seconds_since_power_measurement_start watts (run " << i + 1 << ", node " << k << ")\n";
      int points = 0;
      for (const results::LogRecord& r : results::parse_log(ss.str()).records) {
        if (!r.key_str()) continue;
        if (*r.key_str() == results::power_key::kStart) start = r.timestamp;
        if (*r.key_str() == results::power_key::kReading && start && r.value["value"].is_number())
          d << (r.timestamp - *start) / 1000 << " " << r.value["value"].get<double>() << "\n", ++points;
      }
      if (points == 0) continue;
      write_file_atomic(dir + "/power_node_" + std::to_string(k) + "_run_" + std::to_string(i + 1) + ".dat", d.str());
      runs.push_back(i + 1);
    }
    if (runs.empty()) continue;
    plotted.push_back(k);
    for (auto [term, ext] : {std::pair<std::string, std::string>{"svg size 900,540 dynamic", "svg"}, {"pngcairo size 900,540", "png"}}) {
      gp += "reset\nset terminal " + term + "\nset output 'power_node_" + std::to_string(k) + "." + ext + "'\n";
      gp += "set title 'Node " + std::to_string(k) + " power over each run'\nset xlabel 'seconds since power_measurement_start'\n"
            "set ylabel 'watts'\nset key below\nset grid\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\nplot ";
      for (size_t j = 0; j < runs.size(); ++j)
        gp += std::string(j ? ", " : "") + "'power_node_" + std::to_string(k) + "_run_" + std::to_string(runs[j]) +
              ".dat' using 1:2 with lines title 'run " + std::to_string(runs[j]) + "'";
      gp += "\n";
    }
  }
  if (plotted.empty()) {
    res.note = "No power logs to plot.";
    return res;
  }
  write_file_atomic(dir + "/power.gp", gp);
  res.note = run_gnuplot(dir, "power.gp");
  if (!res.note.empty()) return res;
  for (std::string ext : {"svg", "png"})
    for (int k : plotted) res.images.push_back("power_node_" + std::to_string(k) + "." + ext);
  } catch (const std::exception& e) {
    res.note = std::string("power plots: ") + e.what();
  }
  return res;
}

}  // namespace bert::harness
