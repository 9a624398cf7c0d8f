// TF1 checkpoint -> weights HDF5 (checkpoint_h5.h): keeps the model weights (DT_FLOAT), drops
// optimizer slots (any path component LAMB, LAMB_1, adam_m, adam_v, Momentum, beta1_power,
// beta2_power), global_step and other non-float bookkeeping, as NVIDIA's converter does.
#pragma once
#include <string>
#include <vector>

#include "formats/checkpoint_h5.h"

namespace bert::data {

bool is_optimizer_or_step(const std::string& tf_name);

struct ConvertReport {
  std::vector<std::string> kept;     // in key order
  std::vector<std::string> skipped;  // optimizer slots, global_step, non-float entries
  int64_t parameters = 0;
};

// Reads the bundle `prefix` (crc-verified), writes `out_h5`. Throws DataError on any corruption.
ConvertReport convert_tf_checkpoint(const std::string& prefix, const std::string& out_h5);

}  // namespace bert::data
