#include "binding/binding_json.h"

#include <array>
#include <utility>

#include "common/json_fields.h"

namespace bert::binding {

// Each struct's JSON form: its member table (common/json_fields.h) and the to_json/from_json over it.
// a GPU: index, PCI bus id, NUMA node, OS devices, vendor and model (older plans: none)
constexpr auto kGpuFields = std::make_tuple(
    field("index", &Gpu::index), field("pci_busid", &Gpu::pci_busid), field("numa_node", &Gpu::numa_node),
    field("osdevs", &Gpu::osdevs), optional_field("vendor", &Gpu::vendor),
    optional_field("model", &Gpu::model), optional_field("pci_path", &Gpu::pci_path));
BERT_JSON_FIELDS(ojson, Gpu, kGpuFields)

// a PCI display device not counted as a GPU, and why
constexpr auto kSkippedDeviceFields = std::make_tuple(
    field("pci_busid", &SkippedDevice::pci_busid), field("pci_id", &SkippedDevice::pci_id),
    field("pci_class", &SkippedDevice::pci_class), field("osdevs", &SkippedDevice::osdevs),
    field("reason", &SkippedDevice::reason));
BERT_JSON_FIELDS(ojson, SkippedDevice, kSkippedDeviceFields)

// an RDMA NIC: its OpenFabrics name, PCI place (bus id, NUMA node, the bridges above it), ports, netdevs
constexpr auto kNicFields = std::make_tuple(
    field("name", &Nic::name), field("pci_busid", &Nic::pci_busid), field("numa_node", &Nic::numa_node),
    field("ports", &Nic::ports), field("netdevs", &Nic::netdevs), field("pci_path", &Nic::pci_path));
BERT_JSON_FIELDS(ojson, Nic, kNicFields)

// a NUMA node: its package, CPUs and cores (older plans: no cores)
constexpr auto kNumaNodeFields = std::make_tuple(
    field("os_index", &NumaNode::os_index), field("package", &NumaNode::package),
    field("cpus", &NumaNode::cpus), optional_field("cores", &NumaNode::cores));
BERT_JSON_FIELDS(ojson, NumaNode, kNumaNodeFields)

// a node's topology as the plan expects it
constexpr auto kNodeTopologyFields = std::make_tuple(
    field("source", &NodeTopology::source), field("packages", &NodeTopology::packages),
    field("cores", &NodeTopology::cores), field("pus", &NodeTopology::pus), field("numa", &NodeTopology::numa),
    field("gpus", &NodeTopology::gpus), optional_field("nics", &NodeTopology::nics),
    optional_field("skipped_devices", &NodeTopology::skipped_devices),
    optional_field("has_pci", &NodeTopology::has_pci), field("allowed_cpus", &NodeTopology::allowed_cpus),
    field("reserved_cpus", &NodeTopology::reserved_cpus), field("this_system", &NodeTopology::this_system));
BERT_JSON_FIELDS(ojson, NodeTopology, kNodeTopologyFields)

// one rank's binding: GPU, NUMA node, CPUs, memory nodes
constexpr auto kRankBindingFields = std::make_tuple(
    field("local_rank", &RankBinding::local_rank), field("gpu", &RankBinding::gpu),
    field("gpu_busid", &RankBinding::gpu_busid), field("numa_node", &RankBinding::numa_node),
    field("cpus", &RankBinding::cpus), field("mems", &RankBinding::mems),
    optional_field("nics", &RankBinding::nics), optional_field("nic_locality", &RankBinding::nic_locality));
BERT_JSON_FIELDS(ojson, RankBinding, kRankBindingFields)

namespace {

constexpr EnumNames<CpuPolicy, 6> kCpuNames{{{CpuPolicy::Exclusive, "exclusive"},
                                             {CpuPolicy::ExclusiveNoSmt, "exclusive-nosmt"},
                                             {CpuPolicy::Node, "node"},
                                             {CpuPolicy::Socket, "socket"},
                                             {CpuPolicy::None, "none"},
                                             {CpuPolicy::Map, "map"}}};
constexpr EnumNames<MemPolicy, 3> kMemNames{{{MemPolicy::Node, "node"}, {MemPolicy::None, "none"}, {MemPolicy::Map, "map"}}};
constexpr EnumNames<RankUnit, 3> kUnitNames{{{RankUnit::Gpu, "gpu"}, {RankUnit::Socket, "socket"}, {RankUnit::Numa, "numa"}}};
constexpr EnumNames<NicPolicy, 3> kNicNames{{{NicPolicy::Auto, "auto"}, {NicPolicy::None, "none"}, {NicPolicy::Map, "map"}}};

template <typename E, size_t N>
bool parse_into(const std::string& name, E& out, const EnumNames<E, N>& names) {
  const auto v = parse_enum(name, names);
  if (v) out = *v;
  return v.has_value();
}

}  // namespace

std::string to_string(CpuPolicy p) { return enum_name(p, kCpuNames); }
std::string to_string(MemPolicy p) { return enum_name(p, kMemNames); }
std::string to_string(RankUnit u) { return enum_name(u, kUnitNames); }
bool parse_cpu_policy(const std::string& name, CpuPolicy& out) { return parse_into(name, out, kCpuNames); }
bool parse_mem_policy(const std::string& name, MemPolicy& out) { return parse_into(name, out, kMemNames); }
bool parse_rank_unit(const std::string& name, RankUnit& out) { return parse_into(name, out, kUnitNames); }
std::string to_string(NicPolicy p) { return enum_name(p, kNicNames); }
bool parse_nic_policy(const std::string& name, NicPolicy& out) { return parse_into(name, out, kNicNames); }

}  // namespace bert::binding
