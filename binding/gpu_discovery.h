// Finds the GPUs of an hwloc topology by PCI vendor + class (gpu_vendors.h), never by OS-device position.
#pragma once
#include <vector>

#include "binding/binding.h"
#include "binding/hwloc_topology.h"

namespace bert::binding {

struct GpuDiscovery {
  std::vector<Gpu> gpus;                // PCI bus order, index 0..n-1
  std::vector<SkippedDevice> skipped;   // GPU-like devices that are not GPUs, with the reason
  bool has_pci = false;                 // the topology has PCI devices at all (XML export, live node)
};

// Each GPU carries every OS-device name hwloc attached to its PCI device (cudaN, nvmlN, rsmiN, opencl0dN,
// ze0...) and the NUMA node that device is local to. NVSwitches (class 0x0680) are not GPUs; display
// devices of other vendors (BMC VGA) and Intel integrated graphics are reported as skipped.
GpuDiscovery find_gpus(const HwlocTopology& topo);

}  // namespace bert::binding
