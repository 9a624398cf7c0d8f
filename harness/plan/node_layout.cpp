#include "harness/plan/node_layout.h"

#include "binding/binding_json.h"
#include "harness/plan/plan_errors.h"

namespace bert::harness {
namespace {

binding::TopologySource topology_source(const Config& cfg) {
  binding::TopologySource src;
  if (cfg.given("topology.xml") && cfg.given("topology.synthetic"))
    cfg.fail("topology.synthetic", "give either topology.xml or topology.synthetic, not both");
  if (cfg.given("topology.xml")) {
    src.kind = binding::TopologyKind::Xml;
    src.value = cfg.path("topology.xml");
  } else if (cfg.given("topology.synthetic")) {
    src.kind = binding::TopologyKind::Synthetic;
    src.value = cfg.str("topology.synthetic");
  }
  for (long long n : cfg.integers("topology.gpu_numa_map")) src.gpu_numa_map.push_back(static_cast<int>(n));
  src.reserved_cpus = cfg.str("topology.reserved_cpus");
  src.allowed_cpus = cfg.str("topology.allowed_cpus");
  return src;
}

int count_numa_with_cpus(const binding::NodeTopology& t) {
  int n = 0;
  for (const auto& numa : t.numa) n += numa.cpus.empty() ? 0 : 1;
  return n;
}

binding::BindingPolicy binding_policy(const Config& cfg, binding::RankUnit unit) {
  binding::BindingPolicy p;
  binding::parse_cpu_policy(cfg.str("binding.cpu"), p.cpu);
  binding::parse_mem_policy(cfg.str("binding.mem"), p.mem);
  p.unit = unit;
  p.cpu_map = cfg.strings("binding.cpu_map");
  p.mem_map = cfg.strings("binding.mem_map");
  binding::parse_nic_policy(cfg.str("binding.nic"), p.nic);
  p.nic_map = cfg.strings("binding.nic_map");
  return p;
}

}  // namespace

NodeLayout plan_node_layout(const Config& cfg) {
  NodeLayout l;
  l.topology = detail::guarded(cfg, [&] { return binding::load_topology(topology_source(cfg)); });
  const int found = static_cast<int>(l.topology.gpus.size());
  l.gpus = cfg.is_auto("nodes.gpus_per_node") ? found : static_cast<int>(cfg.integer("nodes.gpus_per_node"));
  if (l.gpus > found)
    cfg.fail("nodes.gpus_per_node",
            "is " + std::to_string(l.gpus) + " but " + l.topology.source + " has " + std::to_string(found) + " GPU(s)");
  if (cfg.is_auto("binding.unit")) l.unit = l.gpus > 0 ? binding::RankUnit::Gpu : binding::RankUnit::Socket;
  else binding::parse_rank_unit(cfg.str("binding.unit"), l.unit);
  if (l.unit == binding::RankUnit::Gpu && l.gpus == 0)
    cfg.fail("nodes.gpus_per_node", "0 GPUs per node with binding.unit gpu; a CPU-only node needs binding.unit socket or numa");
  int rpn = static_cast<int>(cfg.integer("nodes.ranks_per_node"));
  if (rpn == 0) {
    rpn = l.unit == binding::RankUnit::Gpu      ? l.gpus
          : l.unit == binding::RankUnit::Socket ? l.topology.packages
                                                : count_numa_with_cpus(l.topology);
  } else if (l.unit == binding::RankUnit::Gpu && rpn > l.gpus) {
    cfg.fail("nodes.ranks_per_node",
            std::to_string(rpn) + " ranks per node but only " + std::to_string(l.gpus) + " GPU(s) per node");
  }
  l.ranks = detail::guarded(cfg, [&] { return binding::plan_node(l.topology, binding_policy(cfg, l.unit), rpn); });
  return l;
}

}  // namespace bert::harness
