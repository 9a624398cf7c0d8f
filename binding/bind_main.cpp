// bind --plan plan.json [--print] -- CMD...: applies this rank's CPU and memory binding from the
// harness plan, then execs CMD (like NVIDIA's bindpcie, but from a validated plan).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "binding/bind_plan.h"
#include "binding/binding.h"
#include "binding/binding_json.h"
#include "binding/topology_compare.h"

namespace {

using namespace bert::binding;

int fail(const std::string& msg) {
  std::cerr << "bind: " << msg << "\n";
  return 2;
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

void print_plan(const PlannedRank& r, const RankIdentity& who, const std::vector<std::string>& cmd) {
  const RankBinding& b = r.binding;
  std::cout << "bind: node " << r.node_index << " (" << (r.hostname.empty() ? "" : r.hostname + ", ") << "from "
            << r.node_from << "), local rank " << b.local_rank << " (from " << who.local_from << "), global rank "
            << r.global_rank << "\n";
  std::cout << "  gpu:  " << (b.gpu < 0 ? "none" : std::to_string(b.gpu)) << (b.gpu_busid.empty() ? "" : " (" + b.gpu_busid + ")")
            << "\n";
  std::cout << "  cpus: " << (b.cpus.empty() ? "unbound" : b.cpus) << "\n";
  std::cout << "  mems: " << (b.mems.empty() ? "unbound" : b.mems) << "\n";
  std::string nics;
  for (const auto& n : b.nics) nics += (nics.empty() ? "" : ",") + n;
  std::cout << "  nics: " << (nics.empty() ? "none" : nics + " (" + b.nic_locality + ")") << "\n";
  std::cout << "  exec: " << (cmd.empty() ? "(no command)" : joined(cmd)) << "\n";
}

void export_env(const PlannedRank& r) {
  for (const auto& [k, v] : r.env) setenv(k.c_str(), v.c_str(), 0);  // the launcher's values win
  setenv("BERT_BOUND_CPUS", r.binding.cpus.c_str(), 1);
  setenv("BERT_BOUND_MEMS", r.binding.mems.c_str(), 1);
  if (r.binding.gpu >= 0) {
    setenv("BERT_GPU", std::to_string(r.binding.gpu).c_str(), 1);
    // GPU indexes in the plan are PCI bus order; make CUDA's numbering agree unless the user chose.
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  }
  if (!r.binding.gpu_busid.empty()) setenv("BERT_GPU_BUSID", r.binding.gpu_busid.c_str(), 1);
  std::string nics;
  for (const auto& n : r.binding.nics) nics += (nics.empty() ? "" : ",") + n;
  if (!nics.empty()) setenv("BERT_NICS", nics.c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  // Everything after the first "--" is the command; CLI11 parses only what comes before.
  std::vector<std::string> cmd;
  int own = argc;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) {
      own = i;
      cmd.assign(argv + i + 1, argv + argc);
      break;
    }

  CLI::App app{"Applies one rank's CPU/memory binding from a harness plan.json, then execs CMD.\n"
               "usage: bind --plan plan.json [--print] -- CMD...\n"
               "       bind --show-topology | --compare-topology EXPECTED"};
  std::string plan_path, expected_path;
  bool print_only = false, show_topology = false;
  int local_rank = -1, node = -1;
  auto* plan_opt = app.add_option("--plan", plan_path, "plan.json written by the harness");
  app.add_flag("--show-topology", show_topology,
               "print this node's topology as the harness sees it (JSON: NUMA nodes, GPUs, allowed CPUs) and exit")
      ->excludes(plan_opt);
  app.add_option("--compare-topology", expected_path,
                 "compare this node with EXPECTED (hwloc XML, or the JSON of --show-topology): PU/core/NUMA counts, "
                 "NUMA CPUs, GPU and NIC PCI bus ids and their NUMA nodes; exit 2 and both descriptions when they differ")
      ->excludes(plan_opt);
  app.add_flag("--print", print_only, "print what would be done and exit (every rank of the node when no local rank is known)");
  app.add_option("--local-rank", local_rank, "local rank (default: LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK)");
  app.add_option("--node", node, "node index (default: NODE_RANK, SLURM_NODEID, OMPI_COMM_WORLD_NODE_RANK, else 0)");
  try {
    app.parse(own, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }

  try {
    TopologySource this_node;
    this_node.whole_machine = true;  // the machine, not only this job's cgroup (allowed_cpus says that)
    if (show_topology) {
      std::cout << ojson(load_topology(this_node)).dump(2) << "\n";
      return 0;
    }
    if (!expected_path.empty()) {
      TopologyComparison c = compare_topologies(load_expected_topology(expected_path), load_topology(this_node));
      if (!c.matches()) return fail(c.message());
      std::cout << "bind: this node matches " << expected_path << ": " << c.live << "\n";
      return 0;
    }
    if (plan_path.empty()) return fail("--plan is required (or --show-topology, --compare-topology)");
    // --print outside a launched rank (no --local-rank, no launcher variable): every rank of the node.
    RankIdentity who = rank_identity(node, local_rank, getenv_lookup, !print_only);
    if (print_only && who.local_rank < 0) {
      who.local_from = "the plan: every rank of the node; --local-rank N for one";
      for (const PlannedRank& r : read_planned_node(plan_path, who, this_hostname())) print_plan(r, who, cmd);
      return 0;
    }
    PlannedRank r = read_planned_rank(plan_path, who, this_hostname());
    if (print_only) {
      print_plan(r, who, cmd);
      return 0;
    }
    if (cmd.empty()) return fail("no command given after --");
    apply_binding(r.binding);
    export_env(r);
    std::vector<char*> args;
    for (auto& a : cmd) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    return fail("cannot execute '" + cmd[0] + "': " + std::strerror(errno));
  } catch (const bert::UserError& e) {
    return fail(e.what());
  }
}
