// Finding and reading a run's power logs, and the official package checker's power check.
#include <algorithm>
#include <fstream>
#include <map>

#include "results/power.h"
#include "results/mllog/pyjson.h"
#include "results/result_files.h"

namespace bert::results {
namespace fs = std::filesystem;

std::string power_result_name(const fs::path& result_file) {
  const std::string name = result_file.filename().string();
  return name.substr(0, name.find('.'));
}

bool has_power_dir(const fs::path& bench_dir) {
  std::error_code ec;
  return fs::is_directory(bench_dir / "power", ec);
}

namespace {

// The number after the last '_' of the name's stem, or -1 (the official checker would raise there).
int file_index(const std::string& stem) {
  const std::string digits = stem.substr(stem.rfind('_') + 1);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
  return std::stoi(digits);
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<PowerFile> read_power_files(const fs::path& bench_dir, const std::string& result_name) {
  const fs::path dir = bench_dir / "power" / result_name;
  std::vector<PowerFile> out;
  for (const char* prefix : {"node_", "sw_"}) {  // the summarizer's globs node_*.txt and sw_*.txt
    std::vector<PowerFile> group;
    for (const std::string& name : listing(dir)) {
      if (!name.starts_with(prefix) || !name.ends_with(".txt") || name.size() < std::string(prefix).size() + 4) continue;
      PowerFile f;
      f.path = dir / name;
      f.node = std::string(prefix) == "node_";
      f.index = file_index(fs::path(name).stem().string());
      try {
        f.log = parse_log(read_file_bytes(f.path));
      } catch (const std::exception& e) {
        f.read_error = e.what();
      }
      group.push_back(std::move(f));
    }
    std::stable_sort(group.begin(), group.end(), [](const PowerFile& a, const PowerFile& b) { return a.index < b.index; });
    for (PowerFile& f : group) out.push_back(std::move(f));
  }
  return out;
}

std::optional<int> system_node_count(const fs::path& bench_dir) {
  const fs::path system_dir = bench_dir.parent_path();
  const fs::path json_file = system_dir.parent_path().parent_path() / "systems" / (system_dir.filename().string() + ".json");
  std::error_code ec;
  if (!fs::is_regular_file(json_file, ec)) return std::nullopt;
  auto parsed = pyjson::loads(latin1_to_utf8(read_file_bytes(json_file)));
  if (!parsed.ok || !parsed.value.is_object() || !parsed.value.contains("number_of_nodes")) return std::nullopt;
  const json& n = parsed.value["number_of_nodes"];
  try {
    if (n.is_number_integer()) return n.get<int>();
    if (n.is_string()) return std::stoi(n.get<std::string>());
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// PowerChecker.check_power (package_checker/power_checker.py): a folder per result file; node_<x> and
// sw_<x> with x in [0, count); the same node and switch counts in every run (the most common count wins).
OfficialPowerVerdict official_power_check(const fs::path& power_dir, const std::vector<fs::path>& result_files) {
  OfficialPowerVerdict v;
  const fs::path bench = power_dir.parent_path();
  const std::string where = bench.parent_path().filename().string() + "/" + bench.filename().string();
  std::vector<std::string> names;
  std::vector<std::optional<std::pair<int, int>>> counts;  // (nodes, switches) per result with a folder
  for (const fs::path& rf : result_files) {
    const std::string name = rf.stem().string();
    names.push_back(name);
    const fs::path dir = power_dir / name;
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
      v.warnings.push_back("Package does not contain power result for " + where + ": " + name);
      v.failing.insert(name);
      counts.emplace_back();
      continue;
    }
    const std::vector<std::string> files = listing(dir);
    std::vector<int> node_idx, sw_idx;
    bool bad_number = false;
    for (const std::string& f : files) {
      const bool node = f.starts_with("node"), sw = f.starts_with("sw");
      if (!node && !sw) continue;
      const int k = file_index(fs::path(f).stem().string());
      if (k < 0) bad_number = true;  // int() raises in the official checker
      (node ? node_idx : sw_idx).push_back(k);
    }
    if (files.size() > node_idx.size() + sw_idx.size())
      v.warnings.push_back("Detected " + std::to_string(files.size()) + " total files in directory " + dir.string() +
                           ", but some do not conform");
    auto in_range = [](const std::vector<int>& idx) {
      return std::all_of(idx.begin(), idx.end(), [&](int k) { return k >= 0 && k < static_cast<int>(idx.size()); });
    };
    if (bad_number || !in_range(node_idx)) {
      v.warnings.push_back("Bad naming of node power files in directory " + dir.string() +
                           ", expected to be node_x with x in range [0, " + std::to_string(int(node_idx.size()) - 1) + "]");
      v.failing.insert(name);
    }
    if (bad_number || !in_range(sw_idx)) {
      v.warnings.push_back("Bad naming of sw power files in directory " + dir.string() +
                           ", expected to be sw_x with x in range [0, " + std::to_string(int(sw_idx.size()) - 1) + "]");
      v.failing.insert(name);
    }
    counts.emplace_back(std::make_pair(int(node_idx.size()), int(sw_idx.size())));
  }
  // check_equals over the folders that exist, as the official list is indexed into result_names.
  for (int part = 0; part < 2; ++part) {
    std::vector<int> lens;
    for (const auto& c : counts)
      if (c) lens.push_back(part == 0 ? c->first : c->second);
    if (lens.empty()) continue;
    std::map<int, int> freq;
    std::vector<int> order;  // first appearance (Python's max over dict keys in insertion order)
    for (int l : lens)
      if (freq[l]++ == 0) order.push_back(l);
    int common = order.front();
    for (int l : order)
      if (freq[l] > freq[common]) common = l;
    for (size_t i = 0; i < lens.size(); ++i) {
      if (lens[i] == common) continue;
      const std::string& name = names[i];  // the official checker indexes result_names by this position
      v.warnings.push_back(std::string("Inconsistent number of ") + (part == 0 ? "nodes" : "sw") + " in directory " +
                           power_dir.string() + "/" + name);
      v.failing.insert(name);
    }
  }
  return v;
}

}  // namespace bert::results
