#include "binding/topology_compare.h"

#include <fstream>

#include "binding/binding_json.h"
#include "binding/count_of.h"

namespace bert::binding {
namespace {

const NumaNode* numa_of(const NodeTopology& t, int os_index) {
  for (const auto& n : t.numa)
    if (n.os_index == os_index) return &n;
  return nullptr;
}

const Gpu* gpu_at_bus(const NodeTopology& t, const std::string& busid) {
  for (const auto& g : t.gpus)
    if (g.pci_busid == busid) return &g;
  return nullptr;
}

std::string numa_name(int os_index) { return os_index < 0 ? "an unknown NUMA node" : "NUMA node " + std::to_string(os_index); }

void compare_count(std::vector<std::string>& out, const std::string& what, size_t expected, size_t live) {
  if (expected != live)
    out.push_back(what + ": expected " + std::to_string(expected) + ", this node has " + std::to_string(live));
}

void compare_numa(std::vector<std::string>& out, const NodeTopology& expected, const NodeTopology& live) {
  for (const auto& e : expected.numa) {
    const NumaNode* l = numa_of(live, e.os_index);
    std::string name = "NUMA node " + std::to_string(e.os_index);
    if (!l) {
      out.push_back(name + ": expected with CPUs " + e.cpus + ", this node has no " + name);
      continue;
    }
    if (e.cpus != l->cpus) {
      out.push_back(name + " CPUs: expected " + e.cpus + ", this node " + l->cpus);
      continue;
    }
    for (size_t c = 0; c < e.cores.size() && c < l->cores.size(); ++c)
      if (e.cores[c] != l->cores[c]) {
        out.push_back(name + ", its core " + std::to_string(c) + ": expected PUs " + e.cores[c] + ", this node " +
                      l->cores[c] + " (SMT siblings are numbered differently)");
        break;
      }
  }
  for (const auto& l : live.numa)
    if (!numa_of(expected, l.os_index))
      out.push_back("NUMA node " + std::to_string(l.os_index) + ": not expected, this node has it with CPUs " + l.cpus);
}

bool has_bus_ids(const NodeTopology& t) {
  for (const auto& g : t.gpus)
    if (g.pci_busid.empty()) return false;
  return !t.gpus.empty();
}

void compare_gpus(std::vector<std::string>& out, const NodeTopology& expected, const NodeTopology& live) {
  if (expected.gpus.size() != live.gpus.size())
    out.push_back("GPUs: expected " + std::to_string(expected.gpus.size()) + ", this node has " +
                  std::to_string(live.gpus.size()) + skipped_devices_note(live));
  if (has_bus_ids(expected)) {
    for (const auto& e : expected.gpus) {
      const Gpu* l = gpu_at_bus(live, e.pci_busid);
      if (!l)
        out.push_back("GPU " + e.pci_busid + ": expected on " + numa_name(e.numa_node) + ", not on this node");
      else if (l->numa_node != e.numa_node)
        out.push_back("GPU " + e.pci_busid + ": expected on " + numa_name(e.numa_node) + ", this node has it on " +
                      numa_name(l->numa_node));
    }
    for (const auto& l : live.gpus)
      if (!gpu_at_bus(expected, l.pci_busid))
        out.push_back("GPU " + l.pci_busid + ": on this node (" + numa_name(l.numa_node) + "), not expected");
    return;
  }
  // Expected GPUs from topology.gpu_numa_map: GPU i is the i-th in PCI bus order on the node.
  for (size_t i = 0; i < expected.gpus.size() && i < live.gpus.size(); ++i) {
    const Gpu& e = expected.gpus[i];
    const Gpu& l = live.gpus[i];
    if (e.numa_node != l.numa_node)
      out.push_back("GPU " + std::to_string(i) + ": expected on " + numa_name(e.numa_node) +
                    " (topology.gpu_numa_map), this node's GPU " + std::to_string(i) +
                    (l.pci_busid.empty() ? "" : " (" + l.pci_busid + ")") + " is on " + numa_name(l.numa_node));
  }
}

const Nic* nic_named(const NodeTopology& t, const std::string& name) {
  for (const auto& n : t.nics)
    if (n.name == name) return &n;
  return nullptr;
}

// Only when the plan's topology lists NICs: a plan without them chose none, whatever the node has.
void compare_nics(std::vector<std::string>& out, const NodeTopology& expected, const NodeTopology& live) {
  if (expected.nics.empty()) return;
  for (const auto& e : expected.nics) {
    const Nic* l = nic_named(live, e.name);
    if (!l)
      out.push_back("NIC " + e.name + " (" + e.pci_busid + "): expected on " + numa_name(e.numa_node) + ", not on this node");
    else if (l->pci_busid != e.pci_busid)
      out.push_back("NIC " + e.name + ": expected at PCI " + e.pci_busid + ", this node has it at " + l->pci_busid);
    else if (l->numa_node != e.numa_node)
      out.push_back("NIC " + e.name + ": expected on " + numa_name(e.numa_node) + ", this node has it on " +
                    numa_name(l->numa_node));
  }
  for (const auto& l : live.nics)
    if (!nic_named(expected, l.name))
      out.push_back("NIC " + l.name + " (" + l.pci_busid + "): on this node (" + numa_name(l.numa_node) + "), not expected");
}

}  // namespace

std::string describe_topology(const NodeTopology& t) {
  std::string s = t.source + ": " + count_of(t.packages, "packages") + ", " + count_of(t.cores, "cores") + ", " +
                  count_of(t.pus, "PUs");
  for (const auto& n : t.numa) s += "; NUMA " + std::to_string(n.os_index) + ": " + (n.cpus.empty() ? "no CPUs" : n.cpus);
  s += "; " + count_of(t.gpus.size(), "GPUs");
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    const Gpu& g = t.gpus[i];
    s += (i ? ", " : ": ") + (g.pci_busid.empty() ? "GPU " + std::to_string(g.index) : g.pci_busid) + " on NUMA " +
         std::to_string(g.numa_node);
  }
  if (!t.nics.empty()) s += "; " + count_of(t.nics.size(), "NICs");
  for (size_t i = 0; i < t.nics.size(); ++i)
    s += (i ? ", " : ": ") + t.nics[i].name + " " + t.nics[i].pci_busid + " on NUMA " + std::to_string(t.nics[i].numa_node);
  return s + skipped_devices_note(t);
}

TopologyComparison compare_topologies(const NodeTopology& expected, const NodeTopology& live) {
  TopologyComparison c;
  compare_count(c.differences, "packages", expected.packages, live.packages);
  compare_count(c.differences, "cores", expected.cores, live.cores);
  compare_count(c.differences, "PUs", expected.pus, live.pus);
  compare_count(c.differences, "NUMA nodes", expected.numa.size(), live.numa.size());
  compare_numa(c.differences, expected, live);
  compare_gpus(c.differences, expected, live);
  compare_nics(c.differences, expected, live);
  c.expected_source = expected.source;
  c.expected = describe_topology(expected);
  c.live = describe_topology(live);
  return c;
}

std::string TopologyComparison::message() const {
  std::string m = "this node does not match the expected topology (" + expected_source + "):\n";
  for (const auto& d : differences) m += "  " + d + "\n";
  m += "  expected:  " + expected + "\n";
  m += "  this node: " + live;
  return m;
}

NodeTopology load_expected_topology(const std::string& path) {
  if (path.ends_with(".xml")) {
    TopologySource src;
    src.kind = TopologyKind::Xml;
    src.value = path;
    try {
      return load_topology(src);
    } catch (const UserError& e) {
      throw UserError("bind", e.what());
    }
  }
  std::ifstream in(path);
  if (!in) throw UserError("bind", path + ": cannot open the expected topology");
  try {
    return ojson::parse(in).get<NodeTopology>();
  } catch (const ojson::exception& e) {
    throw UserError("bind", path + ": not an hwloc XML (*.xml) or the JSON of `bind --show-topology`: " + e.what());
  }
}

}  // namespace bert::binding
