// plan_node: one RankBinding per local rank from a NodeTopology and a BindingPolicy.
#include <algorithm>
#include <set>

#include "binding/binding.h"
#include "binding/count_of.h"
#include "binding/cpu_list.h"

namespace bert::binding {
namespace {

// What one local rank stands for: a GPU, a socket or a NUMA node, and the NUMA nodes it lives on.
struct Unit {
  std::string name;            // "GPU 3", "socket 1", "NUMA node 2" (for messages)
  int gpu = -1;
  std::string gpu_busid;
  IndexList home;              // NUMA nodes (OS indexes) the unit is local to
  int peers = 1;               // units sharing `home` (GPUs local to the same NUMA node)
  int position = 0;            // this unit's place among its peers
};

const NumaNode& numa_at(const NodeTopology& topo, int os_index) {
  for (const auto& n : topo.numa)
    if (n.os_index == os_index) return n;
  throw UserError("topology", "NUMA node " + std::to_string(os_index) + " is not in " + topo.source);
}

std::vector<Unit> gpu_units(const NodeTopology& topo, int ranks) {
  if (static_cast<size_t>(ranks) > topo.gpus.size())
    throw UserError("binding.unit", count_of(ranks, "local ranks") + " requested but " + topo.source +
                                           " has " + count_of(topo.gpus.size(), "GPUs") + skipped_devices_note(topo));
  std::vector<Unit> units;
  for (int r = 0; r < ranks; ++r) {
    const Gpu& g = topo.gpus[r];
    Unit u;
    u.name = "GPU " + std::to_string(g.index);
    u.gpu = g.index;
    u.gpu_busid = g.pci_busid;
    if (g.numa_node < 0)
      throw UserError("topology.gpu_numa_map", "local rank " + std::to_string(r) + ": " + u.name +
                                                      " has no known NUMA node; give topology.gpu_numa_map");
    u.home = {g.numa_node};
    for (const Gpu& other : topo.gpus) {
      if (other.numa_node != g.numa_node) continue;
      if (other.index < g.index) ++u.position;
      if (other.index != g.index) ++u.peers;
    }
    units.push_back(u);
  }
  return units;
}

std::vector<Unit> cpu_units(const NodeTopology& topo, RankUnit kind, int ranks) {
  std::vector<Unit> units;
  if (kind == RankUnit::Socket) {
    std::set<int> packages;
    for (const auto& n : topo.numa) packages.insert(n.package);
    for (int p : packages) {
      Unit u;
      u.name = "socket " + std::to_string(p);
      for (const auto& n : topo.numa)
        if (n.package == p) u.home.push_back(n.os_index);
      units.push_back(u);
    }
  } else {
    for (const auto& n : topo.numa) {
      if (n.cpus.empty()) continue;  // memory-only node (HBM, CXL): no rank lives there
      Unit u;
      u.name = "NUMA node " + std::to_string(n.os_index);
      u.home = {n.os_index};
      units.push_back(u);
    }
  }
  if (static_cast<size_t>(ranks) > units.size())
    throw UserError("binding.unit", count_of(ranks, "local ranks") + " requested but " + topo.source + " has " +
                                           count_of(units.size(), kind == RankUnit::Socket ? "sockets" : "NUMA nodes with CPUs"));
  for (auto& u : units) std::sort(u.home.begin(), u.home.end());
  units.resize(ranks);
  return units;
}

// Allowed PUs of each core of the unit's home nodes (cores without an allowed PU dropped).
std::vector<IndexList> allowed_cores(const NodeTopology& topo, const Unit& u, const IndexList& allowed) {
  std::vector<IndexList> cores;
  for (int node : u.home)
    for (const auto& core : numa_at(topo, node).cores) {
      IndexList pus = list_intersect(parse_list(core, "topology"), allowed);
      if (!pus.empty()) cores.push_back(pus);
    }
  return cores;
}

IndexList home_cpus(const NodeTopology& topo, const IndexList& nodes, const IndexList& allowed) {
  IndexList cpus;
  for (int node : nodes) cpus = list_union(cpus, parse_list(numa_at(topo, node).cpus, "topology"));
  return list_intersect(cpus, allowed);
}

IndexList socket_nodes(const NodeTopology& topo, const Unit& u) {
  IndexList nodes;
  for (int home : u.home) {
    int pkg = numa_at(topo, home).package;
    for (const auto& n : topo.numa)
      if (n.package == pkg) nodes.push_back(n.os_index);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

std::string rank_name(int r, const Unit& u) { return "local rank " + std::to_string(r) + " (" + u.name + ")"; }

IndexList exclusive_cpus(const NodeTopology& topo, int r, const Unit& u, const IndexList& allowed, bool smt) {
  std::vector<IndexList> cores = allowed_cores(topo, u, allowed);
  std::string where = u.home.size() == 1 ? "NUMA node " + std::to_string(u.home[0])
                                         : "NUMA nodes " + format_list(u.home);
  if (cores.size() < static_cast<size_t>(u.peers))
    throw UserError("binding.cpu", rank_name(r, u) + ": " + where + " has " +
                                          count_of(cores.size(), "allowed cores") + " for " +
                                          count_of(u.peers, u.gpu >= 0 ? "local GPUs" : "ranks") +
                                          "; exclusive needs at least one core per rank (use binding.cpu: node)");
  size_t per = cores.size() / u.peers;
  IndexList cpus;
  for (size_t c = u.position * per; c < (u.position + 1) * per; ++c)
    cpus = list_union(cpus, smt ? cores[c] : IndexList{cores[c].front()});
  return cpus;
}

IndexList map_entry(const std::vector<std::string>& map, int r, const std::string& field, const IndexList& allowed,
                    const std::string& what) {
  IndexList list = parse_list(map[r], field + "[" + std::to_string(r) + "]");
  if (list.empty())
    throw UserError(field, "local rank " + std::to_string(r) + ": empty " + what + " list");
  if (int bad = first_outside(list, allowed); bad >= 0)
    throw UserError(field, "local rank " + std::to_string(r) + ": <" + map[r] + "> is invalid: " +
                                  out_of_range_message(what, bad, allowed));
  return list;
}

void check_map_size(const std::vector<std::string>& map, const std::string& field, int ranks) {
  if (map.size() != static_cast<size_t>(ranks))
    throw UserError(field, "has " + count_of(map.size(), "entries") + " for " + count_of(ranks, "local ranks") +
                                  " (one entry per local rank)");
}

IndexList rank_cpus(const NodeTopology& topo, const BindingPolicy& p, int r, const Unit& u, const IndexList& allowed) {
  switch (p.cpu) {
    case CpuPolicy::Exclusive: return exclusive_cpus(topo, r, u, allowed, true);
    case CpuPolicy::ExclusiveNoSmt: return exclusive_cpus(topo, r, u, allowed, false);
    case CpuPolicy::Node: return home_cpus(topo, u.home, allowed);
    case CpuPolicy::Socket: return home_cpus(topo, socket_nodes(topo, u), allowed);
    case CpuPolicy::Map: return map_entry(p.cpu_map, r, "binding.cpu_map", allowed, "cpu");
    case CpuPolicy::None: return {};
  }
  return {};
}

IndexList rank_mems(const BindingPolicy& p, int r, const Unit& u, const IndexList& nodes) {
  switch (p.mem) {
    case MemPolicy::Node: return u.home;
    case MemPolicy::Map: return map_entry(p.mem_map, r, "binding.mem_map", nodes, "node");
    case MemPolicy::None: return {};
  }
  return {};
}

size_t count_allowed_cores(const NodeTopology& topo, const IndexList& allowed) {
  size_t n = 0;
  for (const auto& node : topo.numa)
    for (const auto& core : node.cores)
      if (!list_intersect(parse_list(core, "topology"), allowed).empty()) ++n;
  return n;
}

}  // namespace

std::vector<RankBinding> plan_node(const NodeTopology& topo, const BindingPolicy& policy, int ranks_per_node) {
  if (ranks_per_node < 1)
    throw UserError("binding.ranks_per_node", "needs at least 1 local rank, got " + std::to_string(ranks_per_node));
  const IndexList allowed = parse_list(topo.allowed_cpus, "topology.allowed_cpus");
  IndexList nodes;
  for (const auto& n : topo.numa) nodes.push_back(n.os_index);
  std::sort(nodes.begin(), nodes.end());

  if (policy.cpu == CpuPolicy::Map) check_map_size(policy.cpu_map, "binding.cpu_map", ranks_per_node);
  if (policy.mem == MemPolicy::Map) check_map_size(policy.mem_map, "binding.mem_map", ranks_per_node);
  if (policy.cpu == CpuPolicy::Exclusive || policy.cpu == CpuPolicy::ExclusiveNoSmt) {
    size_t cores = count_allowed_cores(topo, allowed);
    if (static_cast<size_t>(ranks_per_node) > cores)
      throw UserError("binding.cpu", "local rank " + std::to_string(cores) + " has no core of its own: " +
                                            count_of(ranks_per_node, "local ranks") + " but only " +
                                            count_of(cores, "allowed cores") + " on " + topo.source +
                                            " (allowed CPUs " + topo.allowed_cpus + "); exclusive needs a core per rank");
  }

  std::vector<Unit> units = policy.unit == RankUnit::Gpu ? gpu_units(topo, ranks_per_node)
                                                         : cpu_units(topo, policy.unit, ranks_per_node);
  std::vector<RankBinding> out;
  for (int r = 0; r < ranks_per_node; ++r) {
    const Unit& u = units[r];
    RankBinding b;
    b.local_rank = r;
    b.gpu = u.gpu;
    b.gpu_busid = u.gpu_busid;
    b.numa_node = u.home.front();
    IndexList cpus = rank_cpus(topo, policy, r, u, allowed);
    if (policy.cpu != CpuPolicy::None && cpus.empty())
      throw UserError("binding.cpu", rank_name(r, u) + " is left with no CPU: none of " +
                                            (u.home.size() == 1 ? "NUMA node " : "NUMA nodes ") + format_list(u.home) +
                                            "'s CPUs is in the allowed set " + topo.allowed_cpus);
    b.cpus = format_list(cpus);
    b.mems = format_list(rank_mems(policy, r, u, nodes));
    out.push_back(std::move(b));
  }
  place_nics(topo, policy, out);
  return out;
}

}  // namespace bert::binding
