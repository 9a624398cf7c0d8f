// Which shipped system YAML an imported config extends: the hardware (topology, binding, launcher,
// container defaults) of the system its DGXSYSTEM names, as data. Unknown systems extend nothing.
#pragma once
#include <string>

namespace bert::harness {

struct SystemBase {
  std::string prefix;  // DGXSYSTEM starts with this (case-sensitive), e.g. DGXH100
  std::string file;    // relative to systems/, e.g. common/dgxh100_common.yaml
};

// The base for this DGXSYSTEM; nullptr when none is known.
const SystemBase* find_system_base(const std::string& dgxsystem);

}  // namespace bert::harness
