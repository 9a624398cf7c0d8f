// Checking every result_*.txt of one results directory.
#include "results/check.h"
#include "results/result_files.h"

namespace bert::results {

DirVerdict check_results_dir(const std::filesystem::path& dir, const CheckOptions& opts) {
  DirVerdict d;
  d.dir = dir.string();
  const auto files = result_files(dir);
  if (files.empty()) throw UserError(dir.string() + ": no result_*.txt files");
  for (const auto& f : files) d.logs.push_back(check_log_file(f, opts));
  if (has_power_dir(dir)) d.power = check_power_dir(dir, files, {system_node_count(dir)});
  return d;
}

}  // namespace bert::results
