// Locating and reading the files of a results directory.
#include "results/result_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "results/check.h"

namespace bert::results {

namespace fs = std::filesystem;

bool result_file_order(const fs::path& a, const fs::path& b) {
  // (not a number, digits without leading zeros: shorter is smaller, then text) and the name as tie-break
  auto key = [](const fs::path& p) {
    std::string name = p.filename().string();
    std::string mid = name.size() >= 11 ? name.substr(7, name.size() - 11) : name;
    const bool number = !mid.empty() && std::all_of(mid.begin(), mid.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::string digits = number ? mid.substr(std::min(mid.find_first_not_of('0'), mid.size() - 1)) : mid;
    return std::make_tuple(!number, number ? digits.size() : 0, digits, name);
  };
  return key(a) < key(b);
}

std::vector<fs::path> result_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError(dir.string() + ": not a directory");
  std::vector<fs::path> out;
  // glob result_*.txt: no recursion, any characters between the prefix and the suffix
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("result_") && name.ends_with(".txt") && name.size() >= 11 && name[0] != '.')
      out.push_back(e.path());
  }
  if (ec) throw UsageError(dir.string() + ": cannot be listed: " + ec.message());
  std::sort(out.begin(), out.end(), result_file_order);
  return out;
}

std::string read_file_bytes(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw UsageError(file.string() + ": no such file");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in) throw UsageError(file.string() + ": cannot be read");
  return ss.str();
}

}  // namespace bert::results
