#include "binding/binding_json.h"

#include <array>
#include <utility>

namespace bert::binding {

void to_json(ojson& j, const Gpu& g) {
  j = ojson{{"index", g.index}, {"pci_busid", g.pci_busid}, {"numa_node", g.numa_node},
            {"osdevs", g.osdevs}, {"vendor", g.vendor}, {"model", g.model}, {"pci_path", g.pci_path}};
}

void from_json(const ojson& j, Gpu& g) {
  j.at("index").get_to(g.index);
  j.at("pci_busid").get_to(g.pci_busid);
  j.at("numa_node").get_to(g.numa_node);
  j.at("osdevs").get_to(g.osdevs);
  g.vendor = j.value("vendor", "");
  g.model = j.value("model", "");
  g.pci_path = j.value("pci_path", std::vector<std::string>{});
}

void to_json(ojson& j, const Nic& n) {
  j = ojson{{"name", n.name},   {"pci_busid", n.pci_busid}, {"numa_node", n.numa_node},
            {"ports", n.ports}, {"netdevs", n.netdevs},     {"pci_path", n.pci_path}};
}

void from_json(const ojson& j, Nic& n) {
  j.at("name").get_to(n.name);
  j.at("pci_busid").get_to(n.pci_busid);
  j.at("numa_node").get_to(n.numa_node);
  j.at("ports").get_to(n.ports);
  j.at("netdevs").get_to(n.netdevs);
  j.at("pci_path").get_to(n.pci_path);
}

void to_json(ojson& j, const SkippedDevice& d) {
  j = ojson{{"pci_busid", d.pci_busid}, {"pci_id", d.pci_id}, {"pci_class", d.pci_class},
            {"osdevs", d.osdevs},       {"reason", d.reason}};
}

void from_json(const ojson& j, SkippedDevice& d) {
  j.at("pci_busid").get_to(d.pci_busid);
  j.at("pci_id").get_to(d.pci_id);
  j.at("pci_class").get_to(d.pci_class);
  j.at("osdevs").get_to(d.osdevs);
  j.at("reason").get_to(d.reason);
}

void to_json(ojson& j, const NumaNode& n) {
  j = ojson{{"os_index", n.os_index}, {"package", n.package}, {"cpus", n.cpus}, {"cores", n.cores}};
}

void from_json(const ojson& j, NumaNode& n) {
  j.at("os_index").get_to(n.os_index);
  j.at("package").get_to(n.package);
  j.at("cpus").get_to(n.cpus);
  n.cores = j.value("cores", std::vector<std::string>{});
}

void to_json(ojson& j, const NodeTopology& t) {
  j = ojson{{"source", t.source}, {"packages", t.packages}, {"cores", t.cores}, {"pus", t.pus},
            {"numa", t.numa},     {"gpus", t.gpus},         {"nics", t.nics},
            {"skipped_devices", t.skipped_devices},
            {"has_pci", t.has_pci}, {"allowed_cpus", t.allowed_cpus},
            {"reserved_cpus", t.reserved_cpus}, {"this_system", t.this_system}};
}

void from_json(const ojson& j, NodeTopology& t) {
  j.at("source").get_to(t.source);
  j.at("packages").get_to(t.packages);
  j.at("cores").get_to(t.cores);
  j.at("pus").get_to(t.pus);
  j.at("numa").get_to(t.numa);
  j.at("gpus").get_to(t.gpus);
  t.nics = j.value("nics", std::vector<Nic>{});  // plans written before NICs were planned have none
  t.skipped_devices = j.value("skipped_devices", std::vector<SkippedDevice>{});
  t.has_pci = j.value("has_pci", false);
  j.at("allowed_cpus").get_to(t.allowed_cpus);
  j.at("reserved_cpus").get_to(t.reserved_cpus);
  j.at("this_system").get_to(t.this_system);
}

void to_json(ojson& j, const RankBinding& b) {
  j = ojson{{"local_rank", b.local_rank}, {"gpu", b.gpu},   {"gpu_busid", b.gpu_busid},
            {"numa_node", b.numa_node},   {"cpus", b.cpus}, {"mems", b.mems},
            {"nics", b.nics},             {"nic_locality", b.nic_locality}};
}

void from_json(const ojson& j, RankBinding& b) {
  j.at("local_rank").get_to(b.local_rank);
  j.at("gpu").get_to(b.gpu);
  j.at("gpu_busid").get_to(b.gpu_busid);
  j.at("numa_node").get_to(b.numa_node);
  j.at("cpus").get_to(b.cpus);
  j.at("mems").get_to(b.mems);
  b.nics = j.value("nics", std::vector<std::string>{});
  b.nic_locality = j.value("nic_locality", "");
}

namespace {

template <typename E, size_t N>
std::string name_of(E value, const std::array<std::pair<E, const char*>, N>& table) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <typename E, size_t N>
bool value_of(const std::string& name, E& out, const std::array<std::pair<E, const char*>, N>& table) {
  for (const auto& [v, n] : table)
    if (name == n) {
      out = v;
      return true;
    }
  return false;
}

constexpr std::array<std::pair<CpuPolicy, const char*>, 6> kCpuNames{{{CpuPolicy::Exclusive, "exclusive"},
                                                                      {CpuPolicy::ExclusiveNoSmt, "exclusive-nosmt"},
                                                                      {CpuPolicy::Node, "node"},
                                                                      {CpuPolicy::Socket, "socket"},
                                                                      {CpuPolicy::None, "none"},
                                                                      {CpuPolicy::Map, "map"}}};
constexpr std::array<std::pair<MemPolicy, const char*>, 3> kMemNames{
    {{MemPolicy::Node, "node"}, {MemPolicy::None, "none"}, {MemPolicy::Map, "map"}}};
constexpr std::array<std::pair<RankUnit, const char*>, 3> kUnitNames{
    {{RankUnit::Gpu, "gpu"}, {RankUnit::Socket, "socket"}, {RankUnit::Numa, "numa"}}};
constexpr std::array<std::pair<NicPolicy, const char*>, 3> kNicNames{
    {{NicPolicy::Auto, "auto"}, {NicPolicy::None, "none"}, {NicPolicy::Map, "map"}}};

}  // namespace

std::string to_string(CpuPolicy p) { return name_of(p, kCpuNames); }
std::string to_string(MemPolicy p) { return name_of(p, kMemNames); }
std::string to_string(RankUnit u) { return name_of(u, kUnitNames); }
bool parse_cpu_policy(const std::string& name, CpuPolicy& out) { return value_of(name, out, kCpuNames); }
bool parse_mem_policy(const std::string& name, MemPolicy& out) { return value_of(name, out, kMemNames); }
bool parse_rank_unit(const std::string& name, RankUnit& out) { return value_of(name, out, kUnitNames); }
std::string to_string(NicPolicy p) { return name_of(p, kNicNames); }
bool parse_nic_policy(const std::string& name, NicPolicy& out) { return value_of(name, out, kNicNames); }

}  // namespace bert::binding
