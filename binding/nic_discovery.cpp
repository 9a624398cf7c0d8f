#include "binding/nic_discovery.h"

#include <algorithm>
#include <string>

#include "binding/pci_locality.h"

namespace bert::binding {
namespace {

// Ports from hwloc's "Port<N>State" infos of an OpenFabrics device (N = port number).
std::vector<int> ports_of(hwloc_obj_t osdev) {
  std::vector<int> ports;
  for (unsigned i = 0; i < osdev->infos_count; ++i) {
    const std::string name = osdev->infos[i].name;
    if (!name.starts_with("Port") || !name.ends_with("State")) continue;
    const std::string number = name.substr(4, name.size() - 9);
    if (!number.empty() && std::all_of(number.begin(), number.end(), ::isdigit)) ports.push_back(std::stoi(number));
  }
  std::sort(ports.begin(), ports.end());
  if (ports.empty()) ports.push_back(1);
  return ports;
}

}  // namespace

std::vector<Nic> find_nics(const HwlocTopology& topo) {
  hwloc_topology_t t = topo.get();
  std::vector<Nic> out;
  for (hwloc_obj_t dev = hwloc_get_next_pcidev(t, nullptr); dev; dev = hwloc_get_next_pcidev(t, dev)) {
    std::vector<hwloc_obj_t> fabric, net;
    for (hwloc_obj_t os : osdevs_of(dev)) {
      if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) fabric.push_back(os);
      if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) net.push_back(os);
    }
    for (hwloc_obj_t os : fabric) {
      Nic n;
      n.name = os->name;
      n.pci_busid = pci_busid_of(dev);
      n.numa_node = local_numa_of(t, dev);
      n.ports = ports_of(os);
      for (hwloc_obj_t i : net) n.netdevs.emplace_back(i->name);
      n.pci_path = pci_path_of(dev);
      out.push_back(std::move(n));
    }
  }
  std::sort(out.begin(), out.end(), [](const Nic& a, const Nic& b) {
    return a.pci_busid != b.pci_busid ? a.pci_busid < b.pci_busid : a.name < b.name;
  });
  return out;
}

}  // namespace bert::binding
