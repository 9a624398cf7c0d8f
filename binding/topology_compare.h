// Is this node the machine the plan was made for? Used by the preflight on every node and by
// `bind --compare-topology`.
#pragma once
#include <string>
#include <vector>

#include "binding/binding.h"

namespace bert::binding {

struct TopologyComparison {
  std::vector<std::string> differences;  // "NUMA nodes: expected 8, this node has 2"
  std::string expected_source;           // XML path, synthetic string or "live"
  std::string expected;                  // describe_topology() of each side
  std::string live;
  bool matches() const { return differences.empty(); }
  // "this node does not match the expected topology (SOURCE):" + one line per difference + both sides.
  std::string message() const;
};

// Compares what a binding depends on: package, core, PU and NUMA-node counts; each NUMA node's CPUs and
// its cores' PUs (so a different SMT numbering shows); the GPUs and their NUMA nodes, matched by PCI bus
// id (by position only when the expected GPUs have no bus id, i.e. come from topology.gpu_numa_map); the
// NICs by name, PCI bus id and NUMA node when the expected topology lists any.
// Allowed and reserved CPUs are not compared: they are per job, not per machine.
TopologyComparison compare_topologies(const NodeTopology& expected, const NodeTopology& live);

// One line: "SOURCE: 2 packages, 48 cores, 96 PUs; NUMA 0: 0-23,48-71; NUMA 1: 24-47,72-95; 8 GPUs:
// 0000:03:00.0 on NUMA 0, ..." (plus the devices not counted as GPUs).
std::string describe_topology(const NodeTopology& t);

// The expected topology from a file: an hwloc XML export (*.xml) or the JSON `bind --show-topology`
// prints. Throws UserError("bind", ...) naming the file.
NodeTopology load_expected_topology(const std::string& path);

}  // namespace bert::binding
