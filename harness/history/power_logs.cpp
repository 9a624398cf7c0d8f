#include "harness/history/power_logs.h"

#include <algorithm>

#include "results/log_parser.h"
#include "results/result_files.h"

namespace bert::harness::history {
namespace fs = std::filesystem;

std::vector<PowerSeries> read_power_logs(const fs::path& results_dir, const std::string& result_file,
                                         std::optional<double> origin_ms) {
  const fs::path dir = results_dir / "power" / fs::path(result_file).stem();
  std::vector<PowerSeries> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    PowerSeries s{f.stem().string(), {}, {}};
    std::string text;
    try {
      text = results::read_file_bytes(f);
    } catch (const std::exception&) {
      continue;
    }
    std::vector<std::pair<double, double>> points;
    for (const results::LogRecord& r : results::parse_log(text).records) {
      const std::string* key = r.key_str();
      if (!key || *key != "power_reading" || !r.value.is_object() || !r.value.contains("value")) continue;
      if (r.value["value"].is_number()) points.emplace_back(r.timestamp, r.value["value"].get<double>());
    }
    std::sort(points.begin(), points.end());
    if (points.empty()) continue;
    const double origin = origin_ms ? *origin_ms : points.front().first;
    for (const auto& [t, w] : points) {
      s.minutes.push_back((t - origin) / 60000.0);
      s.watts.push_back(w);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace bert::harness::history
