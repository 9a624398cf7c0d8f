// load_topology: hwloc topology (live/XML/synthetic) -> NodeTopology value, GPUs and allowed CPUs.
#include <algorithm>
#include <map>

#include "binding/allowed_cpus.h"
#include "binding/binding.h"
#include "binding/count_of.h"
#include "binding/cpu_list.h"
#include "binding/gpu_discovery.h"
#include "binding/hwloc_topology.h"
#include "binding/nic_discovery.h"

namespace bert::binding {
namespace {

std::string source_name(const TopologySource& src) {
  return src.kind == TopologyKind::Live ? "live" : src.value;
}

// PU list of every core inside `cpuset`, in core order; a PU without a Core ancestor is its own core.
std::vector<std::string> cores_inside(hwloc_topology_t t, hwloc_const_cpuset_t cpuset) {
  std::vector<std::string> cores;
  std::map<hwloc_obj_t, IndexList> seen;
  std::vector<hwloc_obj_t> order;
  hwloc_obj_t pu = nullptr;
  while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t, cpuset, HWLOC_OBJ_PU, pu)) != nullptr) {
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t key = core ? core : pu;
    if (!seen.count(key)) order.push_back(key);
    seen[key].push_back(static_cast<int>(pu->os_index));
  }
  for (hwloc_obj_t key : order) {
    IndexList pus = seen[key];
    std::sort(pus.begin(), pus.end());
    cores.push_back(format_list(pus));
  }
  return cores;
}

std::vector<NumaNode> numa_nodes(hwloc_topology_t t) {
  std::vector<NumaNode> out;
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)) != nullptr) {
    NumaNode n;
    n.os_index = static_cast<int>(node->os_index);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, node);
    n.package = pkg ? static_cast<int>(pkg->os_index) : 0;
    n.cpus = format_list(bitmap_to_list(node->cpuset));
    n.cores = cores_inside(t, node->cpuset);
    out.push_back(std::move(n));
  }
  return out;
}

const NumaNode* find_numa(const std::vector<NumaNode>& nodes, int os_index) {
  for (const auto& n : nodes)
    if (n.os_index == os_index) return &n;
  return nullptr;
}

// GPU locality from PCI when the topology has it; the YAML map must agree with it. Without PCI
// information (synthetic topologies) the map defines the GPUs.
void apply_gpu_numa_map(NodeTopology& topo, const std::vector<int>& map) {
  const std::string field = "topology.gpu_numa_map";
  for (size_t i = 0; i < map.size(); ++i)
    if (!find_numa(topo.numa, map[i]))
      throw UserError(field, "entry " + std::to_string(i) + " names NUMA node " + std::to_string(map[i]) +
                                    ", which " + topo.source + " does not have");
  if (!topo.has_pci) {
    for (size_t i = 0; i < map.size(); ++i) {
      Gpu g;
      g.index = static_cast<int>(i);
      g.numa_node = map[i];
      topo.gpus.push_back(g);
    }
    return;
  }
  if (map.size() > topo.gpus.size())
    throw UserError(field, "has " + std::to_string(map.size()) + " entries but " + topo.source +
                                  (topo.gpus.empty() ? " has no GPU" : " has only " + count_of(topo.gpus.size(), "GPUs")) +
                                  " (a topology that lists its PCI devices defines its GPUs; the map cannot add any)" +
                                  skipped_devices_note(topo));
  for (size_t i = 0; i < map.size(); ++i) {
    const Gpu& g = topo.gpus[i];
    if (g.numa_node >= 0 && g.numa_node != map[i])
      throw UserError(field, "says GPU " + std::to_string(i) + " is on NUMA node " + std::to_string(map[i]) +
                                    ", but its PCI device " + g.pci_busid + " is local to NUMA node " +
                                    std::to_string(g.numa_node) + " in " + topo.source);
  }
}

IndexList checked_subset(const std::string& text, const std::string& field, const IndexList& machine,
                         const std::string& source) {
  IndexList list = parse_list(text, field);
  if (int bad = first_outside(list, machine); bad >= 0)
    throw UserError(field, "CPU " + std::to_string(bad) + " is not in the machine (" + source + " has PUs " +
                                  format_list(machine) + ")");
  return list;
}

}  // namespace

NodeTopology load_topology(const TopologySource& src) {
  HwlocTopology hw = HwlocTopology::load(src);
  hwloc_topology_t t = hw.get();
  NodeTopology topo;
  topo.source = source_name(src);
  topo.this_system = src.kind == TopologyKind::Live && hw.is_this_system();
  topo.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  topo.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  topo.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  topo.numa = numa_nodes(t);
  GpuDiscovery found = find_gpus(hw);
  topo.gpus = std::move(found.gpus);
  topo.skipped_devices = std::move(found.skipped);
  topo.has_pci = found.has_pci;
  topo.nics = find_nics(hw);
  apply_gpu_numa_map(topo, src.gpu_numa_map);

  const IndexList machine = bitmap_to_list(hwloc_get_root_obj(t)->cpuset);
  IndexList allowed = machine;
  if (!src.allowed_cpus.empty())
    allowed = checked_subset(src.allowed_cpus, "topology.allowed_cpus", machine, topo.source);
  else if (src.kind == TopologyKind::Live)
    allowed = list_intersect(process_allowed_cpus(), machine);
  IndexList reserved = checked_subset(src.reserved_cpus, "topology.reserved_cpus", machine, topo.source);
  allowed = list_minus(allowed, reserved);
  if (allowed.empty())
    throw UserError(src.reserved_cpus.empty() ? "topology.allowed_cpus" : "topology.reserved_cpus",
                       "no CPU of " + topo.source + " is left for the job");
  topo.allowed_cpus = format_list(allowed);
  topo.reserved_cpus = format_list(reserved);
  return topo;
}

}  // namespace bert::binding
