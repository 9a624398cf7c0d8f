// Finds the RDMA network cards of an hwloc topology: PCI devices with an OpenFabrics OS device
// (mlx5_N for InfiniBand and RoCE, rdmapN for AWS EFA, hfi1_N), never Ethernet-only cards.
#pragma once
#include <vector>

#include "binding/binding.h"
#include "binding/hwloc_topology.h"

namespace bert::binding {

// PCI bus order; one Nic per OpenFabrics device (a dual-port card with two PCI functions is two).
std::vector<Nic> find_nics(const HwlocTopology& topo);

}  // namespace bert::binding
