#include "binding/linux_pu_numbering.h"

#include <hwloc.h>

#include <memory>

namespace bert::binding {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

TopologyPtr load_synthetic(const std::string& desc) {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) return nullptr;
  TopologyPtr owner(t);
  if (hwloc_topology_set_synthetic(t, desc.c_str()) != 0 || hwloc_topology_load(t) != 0) return nullptr;
  return owner;
}

}  // namespace

std::string with_linux_pu_numbering(const std::string& desc) {
  size_t end = desc.find_last_not_of(" \t");
  if (end == std::string::npos) return desc;
  size_t start = desc.find_last_of(" \t", end);
  start = start == std::string::npos ? 0 : start + 1;
  if (desc.find('(', start) != std::string::npos) return desc;  // the PU level has its own attributes

  TopologyPtr topo = load_synthetic(desc);
  if (!topo) return desc;
  hwloc_topology_t t = topo.get();
  const int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  const int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (cores <= 0 || pus <= cores) return desc;  // no SMT: nothing to renumber

  // Synthetic levels are symmetric: every core has pus/cores threads; thread k of core c is PU k*cores + c.
  std::string indexes;
  for (int i = 0; i < pus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
    if (!core) return desc;
    hwloc_obj_t first = hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU, 0);
    unsigned thread = pu->logical_index - first->logical_index;
    unsigned os = thread * static_cast<unsigned>(cores) + core->logical_index;
    if (i) indexes += ',';
    indexes += std::to_string(os);
  }
  return desc.substr(0, start) + "pu:" + std::to_string(pus / cores) + "(indexes=" + indexes + ")";
}

}  // namespace bert::binding
