// Finds the GPUs of an hwloc topology by PCI vendor + class, never by OS-device position.
#pragma once
#include <vector>

#include "binding/binding.h"
#include "binding/hwloc_topology.h"

namespace bert::binding {

// GPUs in PCI bus order (index 0..n-1), each with every OS-device name hwloc attached to it
// (cudaN, nvmlN, opencl0dN) and the NUMA node its PCI device is local to. NVSwitches (class 0x0680)
// and display devices of other vendors (BMC VGA) are not GPUs.
std::vector<Gpu> find_gpus(const HwlocTopology& topo);

}  // namespace bert::binding
