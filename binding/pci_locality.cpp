#include "binding/pci_locality.h"

#include <algorithm>
#include <cstdio>

namespace bert::binding {

namespace {

std::string busid(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

}  // namespace

std::string pci_busid_of(hwloc_obj_t pcidev) { return busid(pcidev->attr->pcidev); }

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

std::vector<std::string> pci_path_of(hwloc_obj_t pcidev) {
  std::vector<std::string> path;
  for (hwloc_obj_t o = pcidev->parent; o && o->type == HWLOC_OBJ_BRIDGE; o = o->parent) {
    const auto& b = o->attr->bridge;
    char buf[48];
    if (b.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
      std::snprintf(buf, sizeof buf, "host %04x:[%02x-%02x]", b.downstream.pci.domain, b.downstream.pci.secondary_bus,
                    b.downstream.pci.subordinate_bus);
      path.emplace_back(buf);
    } else {
      path.push_back(busid(b.upstream.pci));
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<hwloc_obj_t> osdevs_of(hwloc_obj_t pcidev) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t child = pcidev->io_first_child; child; child = child->next_sibling)
    if (child->type == HWLOC_OBJ_OS_DEVICE && child->name) out.push_back(child);
  return out;
}

}  // namespace bert::binding
