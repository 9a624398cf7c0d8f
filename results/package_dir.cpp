// Checking every result_*.txt of one results directory.
#include <algorithm>

#include "results/check.h"
#include "results/result_files.h"

namespace bert::results {

std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw UsageError(dir.string() + ": not a directory");
  std::vector<std::filesystem::path> out;
  // glob result_*.txt: no recursion, any characters between the prefix and the suffix
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("result_") && name.ends_with(".txt") && name.size() >= 11 && name[0] != '.')
      out.push_back(e.path());
  }
  if (ec) throw UsageError(dir.string() + ": cannot be listed: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

DirVerdict check_results_dir(const std::filesystem::path& dir, const CheckOptions& opts) {
  DirVerdict d;
  d.dir = dir.string();
  const auto files = result_files(dir);
  if (files.empty()) throw UsageError(dir.string() + ": no result_*.txt files");
  for (const auto& f : files) d.logs.push_back(check_log_file(f, opts));
  return d;
}

}  // namespace bert::results
