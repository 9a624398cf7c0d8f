// place_nics / nic_warnings: each rank's NICs from the PCI locality of its GPU (or its NUMA node).
#include <algorithm>
#include <map>

#include "binding/binding.h"
#include "binding/count_of.h"
#include "binding/cpu_list.h"

namespace bert::binding {
namespace {

// Nearer first; the names are what the dry-run and plan.json show.
enum class Locality { Switch, HostBridge, Numa, Package, OtherSocket };
constexpr const char* kLocalityNames[] = {"pci-switch", "host-bridge", "numa", "package", "other-socket"};

struct Place {
  std::vector<std::string> pci_path;  // [] for CPU-only ranks
  int numa = -1;
  int package = -1;
};

int package_of(const NodeTopology& t, int numa) {
  for (const auto& n : t.numa)
    if (n.os_index == numa) return n.package;
  return -1;
}

Place place_of(const NodeTopology& t, const RankBinding& r) {
  Place p;
  if (r.gpu >= 0 && static_cast<size_t>(r.gpu) < t.gpus.size()) p.pci_path = t.gpus[size_t(r.gpu)].pci_path;
  p.numa = r.numa_node;
  p.package = package_of(t, p.numa);
  return p;
}

Locality locality(const NodeTopology& t, const Place& rank, const Nic& nic) {
  size_t common = 0;
  while (common < rank.pci_path.size() && common < nic.pci_path.size() && rank.pci_path[common] == nic.pci_path[common])
    ++common;
  if (common > 0) return rank.pci_path[common - 1].starts_with("host ") ? Locality::HostBridge : Locality::Switch;
  if (nic.numa_node >= 0 && nic.numa_node == rank.numa) return Locality::Numa;
  const int pkg = package_of(t, nic.numa_node);
  if (pkg >= 0 && pkg == rank.package) return Locality::Package;
  return Locality::OtherSocket;
}

std::string with_port(const Nic& n) { return n.name + ":" + std::to_string(n.ports.front()); }

// The rank's nearest NICs (indexes into t.nics) and how near they are.
std::pair<Locality, std::vector<size_t>> nearest(const NodeTopology& t, const RankBinding& r) {
  const Place p = place_of(t, r);
  Locality best = Locality::OtherSocket;
  std::vector<size_t> found;
  for (size_t i = 0; i < t.nics.size(); ++i) {
    const Locality l = locality(t, p, t.nics[i]);
    if (found.empty() || l < best) {
      best = l;
      found = {i};
    } else if (l == best) {
      found.push_back(i);
    }
  }
  return {best, found};
}

std::vector<std::string> map_entry(const NodeTopology& t, const std::string& entry, int r) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= entry.size()) {
    size_t comma = entry.find(',', start);
    std::string item = entry.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? entry.size() + 1 : comma + 1;
    if (item.empty())
      throw UserError("binding.nic_map", "local rank " + std::to_string(r) + ": empty NIC name in '" + entry + "'");
    const std::string name = item.substr(0, item.find(':'));
    auto it = std::find_if(t.nics.begin(), t.nics.end(), [&](const Nic& n) { return n.name == name; });
    if (it == t.nics.end() && !t.nics.empty()) {
      std::string known;
      for (const Nic& n : t.nics) known += (known.empty() ? "" : ", ") + n.name;
      throw UserError("binding.nic_map", "local rank " + std::to_string(r) + ": NIC '" + name + "' is not in " +
                                             t.source + " (its NICs: " + known + ")");
    }
    out.push_back(item.find(':') != std::string::npos ? item : it != t.nics.end() ? with_port(*it) : item + ":1");
  }
  return out;
}

std::string rank_list(const std::vector<int>& ranks) { return format_list(IndexList(ranks.begin(), ranks.end())); }

}  // namespace

void place_nics(const NodeTopology& topo, const BindingPolicy& policy, std::vector<RankBinding>& ranks) {
  if (policy.nic == NicPolicy::None) return;
  if (policy.nic == NicPolicy::Map) {
    if (policy.nic_map.size() != ranks.size())
      throw UserError("binding.nic_map", "has " + count_of(policy.nic_map.size(), "entries") + " for " +
                                             count_of(ranks.size(), "local ranks") + " (one entry per local rank)");
    for (auto& r : ranks) {
      r.nics = map_entry(topo, policy.nic_map[size_t(r.local_rank)], r.local_rank);
      r.nic_locality = "map";
    }
    return;
  }
  if (topo.nics.empty()) return;
  // Ranks with the same nearest NICs split them between them, in local-rank order.
  std::map<std::pair<Locality, std::vector<size_t>>, std::vector<RankBinding*>> groups;
  for (auto& r : ranks) groups[nearest(topo, r)].push_back(&r);
  for (auto& [key, members] : groups) {
    const auto& [where, nics] = key;
    const size_t n = nics.size(), p = members.size();
    for (size_t i = 0; i < p; ++i) {
      RankBinding& r = *members[i];
      r.nic_locality = kLocalityNames[static_cast<int>(where)];
      if (n >= p)
        for (size_t k = i * n / p; k < (i + 1) * n / p; ++k) r.nics.push_back(with_port(topo.nics[nics[k]]));
      else
        r.nics.push_back(with_port(topo.nics[nics[i * n / p]]));
    }
  }
}

std::vector<std::string> nic_warnings(const NodeTopology& topo, const std::vector<RankBinding>& ranks) {
  std::map<std::string, std::vector<int>> across;  // NIC -> ranks reaching it across the socket
  std::map<std::string, int> users;
  for (const auto& r : ranks)
    for (const auto& nic : r.nics) {
      ++users[nic];
      if (r.nic_locality == kLocalityNames[static_cast<int>(Locality::OtherSocket)]) across[nic].push_back(r.local_rank);
    }
  std::vector<std::string> out;
  for (const auto& [nic, rs] : across) {
    if (users[nic] < 2) continue;
    const std::string name = nic.substr(0, nic.find(':'));
    auto it = std::find_if(topo.nics.begin(), topo.nics.end(), [&](const Nic& n) { return n.name == name; });
    const int pkg = it == topo.nics.end() ? -1 : package_of(topo, it->numa_node);
    std::vector<int> gpus, packages;
    for (const auto& r : ranks)
      if (std::find(rs.begin(), rs.end(), r.local_rank) != rs.end()) {
        if (r.gpu >= 0) gpus.push_back(r.gpu);
        packages.push_back(package_of(topo, r.numa_node));
      }
    std::sort(packages.begin(), packages.end());
    packages.erase(std::unique(packages.begin(), packages.end()), packages.end());
    std::string who = (rs.size() == 1 ? "local rank " : "local ranks ") + rank_list(rs);
    if (!gpus.empty()) who += " (" + std::string(gpus.size() == 1 ? "GPU " : "GPUs ") + rank_list(gpus) + ")";
    out.push_back(who + " on package " + rank_list(packages) + " have no NIC on their socket: they share " +
                  name + (pkg >= 0 ? " on package " + std::to_string(pkg) : "") + ", used by " +
                  std::to_string(users[nic]) + " ranks, across the inter-socket link (binding.nic_map overrides)");
  }
  return out;
}

}  // namespace bert::binding
