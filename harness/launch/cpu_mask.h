// A CPU or NUMA-node list in hwloc/Linux list syntax ("0-3,64-67") as the hex mask Slurm's
// --cpu-bind=mask_cpu: and --mem-bind=mask_mem: take ("0xf0000000000000000f").
#pragma once
#include <string>

namespace bert::harness {

// Throws UserError (field `field`) for a list that is not "N", "N-M" items separated by commas.
std::string list_to_hex_mask(const std::string& list, const std::string& field);

}  // namespace bert::harness
