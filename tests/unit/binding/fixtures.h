// Helpers shared by the binding unit tests: load fixture/shipped topologies, run the planner.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "binding/binding.h"
#include "binding/cpu_list.h"
#include "binding/hwloc_topology.h"

namespace bert::binding::test {

inline std::string fixture(const std::string& name) { return std::string(BERT_BINDING_FIXTURES) + "/" + name; }
inline std::string shipped(const std::string& name) { return std::string(BERT_TOPOLOGIES) + "/" + name; }

// A per-process scratch file name in the temp dir (removed by the test that writes it).
inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("bert_binding_" + std::to_string(getpid()) + "_" + name)).string();
}

inline NodeTopology load_xml(const std::string& path, const std::string& reserved = "",
                             const std::vector<int>& map = {}) {
  TopologySource src;
  src.kind = TopologyKind::Xml;
  src.value = path;
  src.reserved_cpus = reserved;
  src.gpu_numa_map = map;
  return load_topology(src);
}

// PCI devices of NVIDIA in the raw hwloc topology (GPUs plus NVSwitches), to show what was skipped.
inline int nvidia_pci_devices(const std::string& path) {
  TopologySource src;
  src.kind = TopologyKind::Xml;
  src.value = path;
  HwlocTopology t = HwlocTopology::load(src);
  int n = 0;
  for (hwloc_obj_t d = hwloc_get_next_pcidev(t.get(), nullptr); d; d = hwloc_get_next_pcidev(t.get(), d))
    n += d->attr->pcidev.vendor_id == 0x10de;
  return n;
}

inline BindingPolicy policy(CpuPolicy cpu, MemPolicy mem = MemPolicy::Node, RankUnit unit = RankUnit::Gpu) {
  BindingPolicy p;
  p.cpu = cpu;
  p.mem = mem;
  p.unit = unit;
  return p;
}

inline std::vector<std::string> cpus_of(const std::vector<RankBinding>& ranks) {
  std::vector<std::string> out;
  for (const auto& r : ranks) out.push_back(r.cpus);
  return out;
}

inline std::vector<int> gpu_numas(const NodeTopology& t) {
  std::vector<int> out;
  for (const auto& g : t.gpus) out.push_back(g.numa_node);
  return out;
}

// The UserError's field and message, or ("", "") when `f` does not throw one.
template <typename F>
std::pair<std::string, std::string> binding_error(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return {e.field, e.what()};
  }
  return {"", ""};
}

// Every core of `t` has 2 PUs numbered the Linux way: the sibling of PU c is c + number of cores.
inline void check_linux_smt(const NodeTopology& t) {
  for (const auto& n : t.numa)
    for (const auto& core : n.cores) {
      INFO("NUMA node " << n.os_index << " core " << core);
      IndexList pus = parse_list(core, "core");
      REQUIRE(pus.size() == 2);
      CHECK(pus[1] == pus[0] + t.cores);
    }
}

inline NodeTopology load_synthetic(const std::string& desc, const std::vector<int>& map = {}) {
  TopologySource src;
  src.kind = TopologyKind::Synthetic;
  src.value = desc;
  src.gpu_numa_map = map;
  return load_topology(src);
}

inline const NumaNode& numa(const NodeTopology& t, int os_index) {
  for (const auto& n : t.numa)
    if (n.os_index == os_index) return n;
  FAIL("no NUMA node " << os_index);
  return t.numa.front();
}

}  // namespace bert::binding::test
