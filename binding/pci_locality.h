// Where a PCI device sits: its bus id, its NUMA node, the bridges above it. Shared by the GPU and the
// NIC discovery (gpu_discovery.cpp, nic_discovery.cpp).
#pragma once
#include <string>
#include <vector>

#include "binding/hwloc_topology.h"

namespace bert::binding {

// "0000:07:00.0"
std::string pci_busid_of(hwloc_obj_t pcidev);

// The NUMA node a device is local to: the nodeset of its first non-I/O ancestor. When that ancestor
// spans several nodes (device attached at package level), the first node that has CPUs; -1 = unknown.
int local_numa_of(hwloc_topology_t t, hwloc_obj_t pcidev);

// The bridges above a device, host bridge first: "host 0000:[00-0c]" for a host bridge (it has no bus id
// of its own), the bus id of each PCI-to-PCI bridge below it (root port, switch ports). Two devices whose
// paths share a PCI-to-PCI bridge are behind one PCI switch; sharing only the host bridge, one root complex.
std::vector<std::string> pci_path_of(hwloc_obj_t pcidev);

// The device's OS devices (cuda0, nvml0, mlx5_0, ib0 ...) that have a name.
std::vector<hwloc_obj_t> osdevs_of(hwloc_obj_t pcidev);

}  // namespace bert::binding
