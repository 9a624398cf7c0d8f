#include "binding/gpu_discovery.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "binding/gpu_vendors.h"

namespace bert::binding {
namespace {

const GpuVendor* gpu_vendor_of(hwloc_obj_t pcidev) {
  const auto& pci = pcidev->attr->pcidev;
  if ((pci.class_id >> 8) != kPciClassDisplay) return nullptr;
  for (const auto& v : kGpuVendors)
    if (v.pci_vendor_id == pci.vendor_id) return &v;
  return nullptr;
}

std::string busid_of(hwloc_obj_t pcidev) {
  const auto& p = pcidev->attr->pcidev;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

// The NUMA node a device is local to: the nodeset of its first non-I/O ancestor. When that ancestor
// spans several nodes (device attached at package level), the first node that has CPUs.
int local_numa_of(hwloc_topology_t t, hwloc_obj_t pcidev) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pcidev);
  if (!anc || !anc->nodeset) return -1;
  if (hwloc_bitmap_weight(anc->nodeset) == 1) return hwloc_bitmap_first(anc->nodeset);
  int first = hwloc_bitmap_first(anc->nodeset);
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)) != nullptr)
    if (hwloc_bitmap_isset(anc->nodeset, node->os_index) && !hwloc_bitmap_iszero(node->cpuset))
      return static_cast<int>(node->os_index);
  return first;
}

}  // namespace

std::vector<Gpu> find_gpus(const HwlocTopology& topo) {
  hwloc_topology_t t = topo.get();
  std::vector<std::pair<hwloc_obj_t, const GpuVendor*>> found;
  for (hwloc_obj_t dev = hwloc_get_next_pcidev(t, nullptr); dev; dev = hwloc_get_next_pcidev(t, dev))
    if (const GpuVendor* v = gpu_vendor_of(dev)) found.emplace_back(dev, v);

  auto key = [](hwloc_obj_t d) {
    const auto& p = d->attr->pcidev;
    return std::make_tuple(p.domain, p.bus, p.dev, p.func);
  };
  std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });

  std::vector<Gpu> gpus;
  for (const auto& [dev, vendor] : found) {
    Gpu g;
    g.index = static_cast<int>(gpus.size());
    g.pci_busid = busid_of(dev);
    g.numa_node = local_numa_of(t, dev);
    g.vendor = std::string(vendor->name);
    for (hwloc_obj_t child = dev->io_first_child; child; child = child->next_sibling) {
      if (child->type != HWLOC_OBJ_OS_DEVICE || !child->name) continue;
      g.osdevs.emplace_back(child->name);
      if (const char* model = hwloc_obj_get_info_by_name(child, "GPUModel"); model && g.model.empty())
        g.model = model;
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace bert::binding
