// Node topology and per-rank CPU/memory binding. Value types only: no hwloc pointers leak out.
// CPU and node lists are hwloc list strings ("0-13,112-125"), physical (OS) indexes.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "common/user_error.h"

namespace bert::binding {

// A user-caused problem (bad topology source, impossible binding) is a bert::UserError whose `field`
// is the system-YAML key path it comes from (e.g. "topology.gpu_numa_map", "binding.cpu"), so the
// harness can point at file:line:col; `what()` is the human message without location.

enum class TopologyKind { Live, Xml, Synthetic };

struct TopologySource {
  TopologyKind kind = TopologyKind::Live;
  std::string value;               // XML path or hwloc synthetic description
  std::vector<int> gpu_numa_map;   // optional: GPU i -> OS NUMA node (used when PCI locality is absent)
  std::string reserved_cpus;       // optional hwloc list: CPUs owned by e.g. a WekaIO client
  std::string allowed_cpus;        // optional override of the allowed set (tests); live: sched_getaffinity
  bool whole_machine = false;      // live: also the CPUs outside this process's cgroup (to compare machines)
};

struct Gpu {
  int index = 0;                   // 0.. in PCI bus order (= nvml order)
  std::string pci_busid;           // "0000:07:00.0" when known
  int numa_node = -1;              // OS index of the local NUMA node
  std::vector<std::string> osdevs; // cuda0, nvml0, opencl0d0 ... (one GPU, several names)
  std::string vendor;              // "NVIDIA", "AMD", "Intel", "Iluvatar" ("" when from gpu_numa_map)
  std::string model;               // GPUModel info of an osdev when the topology has it
  std::vector<std::string> pci_path;  // bridges above it, host bridge first (pci_locality.h); [] when unknown
};

// An RDMA network card (InfiniBand, RoCE, EFA): a PCI device with an OpenFabrics OS device.
struct Nic {
  std::string name;                // the OpenFabrics device (mlx5_0): what NCCL_IB_HCA and UCX_NET_DEVICES name
  std::string pci_busid;
  int numa_node = -1;              // OS index of the local NUMA node, -1 = unknown
  std::vector<int> ports;          // the ports hwloc lists (Port<N>State); {1} when it lists none
  std::vector<std::string> netdevs;  // its network interfaces (ib0, hsi0, ens1f0), for messages
  std::vector<std::string> pci_path;
};

// A display controller or processing accelerator (or a PCI device with a GPU/co-processor OS device) that
// is not counted as a GPU: a BMC's VGA, integrated graphics, an accelerator of a vendor not in gpu_vendors.h.
struct SkippedDevice {
  std::string pci_busid;           // "0000:65:00.0"
  std::string pci_id;              // vendor:device, "1a03:2000"
  std::string pci_class;           // "0300"
  std::vector<std::string> osdevs;
  std::string reason;              // "PCI vendor 1a03 is not a GPU vendor"
};

struct NumaNode {
  int os_index = 0;
  int package = 0;                 // OS index of the Package holding the node (0 when none)
  std::string cpus;                // all PUs of the node
  std::vector<std::string> cores;  // PU list of each core of the node, in core order ("0,128")
};

struct NodeTopology {
  std::string source;              // "live", XML path or synthetic string (for messages)
  int packages = 0, cores = 0, pus = 0;
  std::vector<NumaNode> numa;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;           // in PCI bus order
  std::vector<SkippedDevice> skipped_devices;
  bool has_pci = false;            // the topology lists PCI devices: its GPUs are what PCI says
  std::string allowed_cpus;        // what ranks may use: allowed set minus reserved_cpus
  std::string reserved_cpus;
  bool this_system = false;        // live topology: binding really applies
};

// Throws UserError on: unreadable/invalid XML, bad synthetic string, GPU map longer than the GPUs
// or contradicting PCI locality, reserved CPUs outside the machine. Synthetic topologies get Linux SMT
// numbering (sibling = PU + number of cores) unless their PU level gives its own indexes.
NodeTopology load_topology(const TopologySource& src);

// For messages: "; not counted as GPUs: 1 x [1a03:2000] class 0300 (0000:65:00.0): PCI vendor 1a03 is not a
// GPU vendor", or "" when nothing was skipped.
std::string skipped_devices_note(const NodeTopology& t);

enum class CpuPolicy { Exclusive, ExclusiveNoSmt, Node, Socket, None, Map };
enum class MemPolicy { Node, None, Map };
enum class RankUnit { Gpu, Socket, Numa };  // what one rank per node stands for (CPU-only: socket/numa)
enum class NicPolicy { Auto, None, Map };     // auto: nearest NIC(s) by PCI locality; map: nic_map

struct BindingPolicy {
  CpuPolicy cpu = CpuPolicy::Exclusive;
  MemPolicy mem = MemPolicy::Node;
  RankUnit unit = RankUnit::Gpu;
  std::vector<std::string> cpu_map;  // CpuPolicy::Map: one hwloc list per local rank
  std::vector<std::string> mem_map;  // MemPolicy::Map: one node list per local rank
  NicPolicy nic = NicPolicy::Auto;
  std::vector<std::string> nic_map;  // NicPolicy::Map: per local rank "mlx5_0" or "mlx5_0:1,mlx5_1:1"
};

struct RankBinding {
  int local_rank = 0;
  int gpu = -1;                    // GPU index, -1 for CPU-only ranks
  std::string gpu_busid;
  int numa_node = -1;              // local NUMA node of the GPU (or of the rank's unit)
  std::string cpus;                // hwloc list; empty = unbound
  std::string mems;                // NUMA node list; empty = unbound
  std::vector<std::string> nics;   // "mlx5_0:1" (device:port), nearest first; empty = none chosen
  std::string nic_locality;        // how near: pci-switch | host-bridge | numa | package | other-socket | map
};

// One binding per local rank. Throws UserError (field "binding.cpu" etc.) when a NUMA node has
// more local GPUs than cores, a rank gets no CPU, a map names CPUs outside the allowed set, ...
std::vector<RankBinding> plan_node(const NodeTopology& topo, const BindingPolicy& policy, int ranks_per_node);

// The NICs of each rank (BindingPolicy::nic; plan_node calls it): auto gives a rank the NICs nearest its
// GPU (or its NUMA node) by PCI locality, same PCI switch before same host bridge before same NUMA node
// before same package; ranks that share the nearest NICs split them (rank i of p gets NIC i*n/p, or
// its share of them when there are more NICs than ranks). Throws UserError("binding.nic_map") for a map
// naming a NIC the topology does not have.
void place_nics(const NodeTopology& topo, const BindingPolicy& policy, std::vector<RankBinding>& ranks);

// "local ranks 0-3 (GPUs 0-3, package 0) share NIC rdmap197s0 across the socket (it is on package 1)"
// for every NIC that ranks of another package must share; empty when none.
std::vector<std::string> nic_warnings(const NodeTopology& topo, const std::vector<RankBinding>& ranks);

// Applies a binding to the calling process (hwloc cpubind + thread membind, inherited across exec).
// Throws UserError("bind", ...) with numactl-like wording when the OS refuses.
void apply_binding(const RankBinding& b);

}  // namespace bert::binding
