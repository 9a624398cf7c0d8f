#include "harness/config/naming.h"

#include <filesystem>
#include <regex>

namespace bert::harness {

std::optional<MlperfName> parse_mlperf_name(const std::string& file) {
  static const std::regex re(R"(^(.+?)_(\d+)x(\d+)x(\d+)x(\d+)(?:_(.+))?$)");
  std::string stem = std::filesystem::path(file).stem().string();
  std::smatch m;
  if (!std::regex_match(stem, m, re)) return std::nullopt;
  MlperfName n;
  n.system = m[1];
  try {
    n.nodes = std::stoi(m[2]);
    n.gpus = std::stoi(m[3]);
    n.batch = std::stoi(m[4]);
    n.accum = std::stoi(m[5]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  n.suffix = m[6];
  return n;
}

std::vector<std::string> check_mlperf_name(const std::string& file, const NameFacts& f, const std::string& what) {
  std::vector<std::string> w;
  auto n = parse_mlperf_name(file);
  if (!n) return w;
  std::string name = what + " " + std::filesystem::path(file).filename().string();
  auto differ = [&](const char* what, int in_name, int in_file, const char* key) {
    if (in_name != in_file)
      w.push_back(name + " says " + what + " " + std::to_string(in_name) + " but " + key + " is " +
                  std::to_string(in_file));
  };
  differ("nodes", n->nodes, f.nodes, "nodes.count");
  differ("GPUs per node", n->gpus, f.ranks_per_node, "the ranks per node");
  differ("batch", n->batch, f.batch, "benchmark.batch_size");
  differ("accumulation", n->accum, f.accum, "benchmark.gradient_accumulation_steps");
  bool pack_suffix = n->suffix == "pack" || n->suffix.rfind("pack_", 0) == 0;
  if (pack_suffix && !f.packed) w.push_back(name + " says _pack but benchmark.data.format is not packed");
  if (!pack_suffix && f.packed) w.push_back(name + " lacks _pack but benchmark.data.format is packed");
  return w;
}

}  // namespace bert::harness
