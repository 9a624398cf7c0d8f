// The power logs of a run, where the set has them: results/<system>/bert/power/<result file's stem>/
// node_<k>.txt (and sw_<m>.txt), MLPerf log lines with `power_reading` (watts) as the power rules lay
// them out. Only read for the report's charts; the energy itself is harness score's.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bert::harness::history {

struct PowerSeries {
  std::string name;                      // node_0, sw_0 (the file's stem)
  std::vector<double> minutes, watts;    // minutes since `origin_ms` (or the first reading)
};

// Every node_*/sw_* file of `result_file`'s power folder, in name order; none when there is no folder.
std::vector<PowerSeries> read_power_logs(const std::filesystem::path& results_dir, const std::string& result_file,
                                         std::optional<double> origin_ms);

}  // namespace bert::harness::history
