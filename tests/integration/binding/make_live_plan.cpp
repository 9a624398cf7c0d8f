// Test helper: plans this machine's live topology (one node, N ranks) with the binding library and
// writes the part of a harness plan.json that `bind` reads.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "binding/binding.h"
#include "binding/binding_json.h"

using namespace bert::binding;

int main(int argc, char** argv) {
  CLI::App app{"write a one-node plan.json for this machine"};
  std::string out, cpu = "map", mem = "none", unit = "numa", reserved;
  std::vector<std::string> cpu_map, mem_map;
  int ranks = 1;
  app.add_option("--out", out)->required();
  app.add_option("--cpu", cpu);
  app.add_option("--mem", mem);
  app.add_option("--unit", unit);
  app.add_option("--cpu-map", cpu_map);
  app.add_option("--mem-map", mem_map);
  app.add_option("--ranks", ranks);
  app.add_option("--reserved", reserved);
  CLI11_PARSE(app, argc, argv);

  BindingPolicy p;
  if (!parse_cpu_policy(cpu, p.cpu) || !parse_mem_policy(mem, p.mem) || !parse_rank_unit(unit, p.unit)) {
    std::cerr << "bad policy name\n";
    return 2;
  }
  p.cpu_map = cpu_map;
  p.mem_map = mem_map;
  try {
    TopologySource src;
    src.reserved_cpus = reserved;
    NodeTopology topo = load_topology(src);
    ojson node{{"hostname", "localhost"}, {"topology", topo}, {"ranks", ojson::array()}};
    for (const RankBinding& b : plan_node(topo, p, ranks))
      node["ranks"].push_back(ojson{{"global_rank", b.local_rank},
                                    {"node_index", 0},
                                    {"local_rank", b.local_rank},
                                    {"binding", b},
                                    {"env", ojson{{"RANK", std::to_string(b.local_rank)}}}});
    std::ofstream(out) << ojson{{"nodes", ojson::array({node})}}.dump(2) << "\n";
  } catch (const bert::UserError& e) {
    std::cerr << e.field << ": " << e.what() << "\n";
    return 2;
  }
  return 0;
}
