#include "harness/import/system_bases.h"

#include <vector>

namespace bert::harness {

const SystemBase* find_system_base(const std::string& dgxsystem) {
  static const std::vector<SystemBase> bases{
      {"DGXH100", "common/dgxh100_common.yaml"},
      {"DGXH200", "common/dgxh100_common.yaml"},  // same board, H200 GPUs (v4.1 h200_ngc23.09_pytorch)
      {"DGXA100", "common/dgxa100_common.yaml"},
      {"DGXB200", "common/dgxb200_common.yaml"},
      {"P8000H100", "common/p8000h100_common.yaml"},
      {"Samsung_Supercomputer21_DGXA100", "common/samsung_common.yaml"},
  };
  const SystemBase* best = nullptr;
  for (const SystemBase& b : bases)
    if (dgxsystem.rfind(b.prefix, 0) == 0 && (!best || b.prefix.size() > best->prefix.size())) best = &b;
  return best;
}

}  // namespace bert::harness
