// MLPerf config naming: <system>_<nodes>x<gpus>x<batch>x<accum>[_suffix].yaml
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace bert::harness {

struct MlperfName {
  std::string system;   // text before the numbers, e.g. "dgxa100" or "samsung_dgxa100"
  int nodes = 0, gpus = 0, batch = 0, accum = 0;
  std::string suffix;   // without the leading '_', e.g. "pack"
};

// nullopt when the file stem does not follow the convention (local.yaml, base files).
std::optional<MlperfName> parse_mlperf_name(const std::string& file);

struct NameFacts {      // what the file's content says
  int nodes = 0, ranks_per_node = 0, batch = 0, accum = 0;
  bool packed = false;
};

// One warning per disagreement between the name and the content; `what` names the name ("file name",
// "system.config_name").
std::vector<std::string> check_mlperf_name(const std::string& file, const NameFacts& facts, const std::string& what = "file name");

}  // namespace bert::harness
