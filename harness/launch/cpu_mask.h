// A CPU or NUMA-node list in hwloc/Linux list syntax ("0-3,64-67") as the hex mask Slurm's
// --cpu-bind=mask_cpu: and --mem-bind=mask_mem: take ("0xf0000000000000000f").
#pragma once
#include <string>

namespace bert::harness {

// Parsed by binding::parse_list; throws UserError (field `field`) for an empty list or one it rejects.
std::string list_to_hex_mask(const std::string& list, const std::string& field);

}  // namespace bert::harness
