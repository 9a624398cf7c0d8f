// The node an imported config runs on: the shipped hardware base its DGXSYSTEM names (extends:), or for
// hardware no base describes a topology assumed from the config's own variables, or --topology's XML.
#include <filesystem>

#include "common/user_error.h"
#include "harness/config/config.h"
#include "harness/import/import_state.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

// A node no shipped base describes (its launcher: srun, as run.sub's), from what run.sub's users give: a
// topology assumed from the config's own variables, never read from the host importing it (a login node
// has no GPUs): DGXNSOCKET, DGXSOCKETCORES and DGXHT when given (else one socket with a core per GPU), the
// DGXNGPU GPUs spread evenly over the sockets (the DGX layout). topology.assumed tells the plan and the
// preflight that it is an assumption: each compute node's GPU count is checked, not its whole description.
void describe_unknown_node(ImportState& s) {
  const auto& vars = s.vars;
  auto& notes = s.r.notes;
  auto number = [&](const char* k, int fallback) {
    if (!vars.count(k) || vars.at(k).empty()) return fallback;
    try {
      size_t used = 0;
      const int v = std::stoi(vars.at(k), &used);
      return used == vars.at(k).size() && v >= 1 ? v : -1;
    } catch (const std::exception&) {
      return -1;
    }
  };
  const int g = number("DGXNGPU", 0), n = number("DGXNSOCKET", 0), c = number("DGXSOCKETCORES", 0), t = number("DGXHT", 1);
  if (g < 0 || n < 0 || c < 0 || t < 0) {
    notes.push_back("DGXNGPU/DGXNSOCKET/DGXSOCKETCORES/DGXHT are not all whole numbers: no topology assumed; give --topology "
                    "NODE.xml (or --set topology.synthetic=...)");
    return;
  }
  if (g == 0 && (n == 0 || c == 0)) {
    notes.push_back("no DGXNGPU, DGXNSOCKET or DGXSOCKETCORES: no topology assumed; give --topology NODE.xml (or --set "
                    "topology.synthetic=... and nodes.gpus_per_node)");
    return;
  }
  const bool cpus_given = n > 0 && c > 0;
  const int sockets = cpus_given ? n : 1, cores = cpus_given ? c : std::max(1, g), pus = cpus_given ? t : 1;
  const std::string synthetic = "pack:" + std::to_string(sockets) + " numa:1 core:" + std::to_string(cores) + " pu:" + std::to_string(pus);
  s.y["topology"]["synthetic"] = synthetic;
  s.y["topology"]["assumed"] = "true";
  for (const char* k : {"DGXNSOCKET", "DGXSOCKETCORES", "DGXHT"})
    if (vars.count(k) && cpus_given) s.row(k, "mapped", "topology.synthetic (" + synthetic + ", assumed)");
  if (g > 0) {
    YAML::Node map(YAML::NodeType::Sequence);
    map.SetStyle(YAML::EmitterStyle::Flow);
    for (int i = 0; i < g; ++i) map.push_back(i * sockets / g);
    s.y["topology"]["gpu_numa_map"] = map;
    s.y["binding"]["unit"] = "gpu";
  }
  s.r.origins.push_back(std::string("topology.synthetic, topology.assumed") + (g > 0 ? ", topology.gpu_numa_map, binding.unit gpu" : "") +
                        ": assumed from the config's variables (no base describes the node; the note below says how)");
  notes.push_back("assumed topology " + synthetic + (g > 0 ? " with " + std::to_string(g) + " GPU(s) spread evenly over the sockets" : "") +
                  (cpus_given ? " (DGXNSOCKET/DGXSOCKETCORES/DGXHT" : " (no DGXNSOCKET/DGXSOCKETCORES: one core per GPU") +
                  (g > 0 ? ", DGXNGPU)" : ")") +
                  ": not this host's; the preflight checks each compute node's GPU count. --topology NODE.xml pins the real one");
}

// `file` (a path under systems/) as the YAML's extends: relative to the YAML inside systems/, else absolute.
void extend(ImportState& s, const std::string& file) {
  s.base_file = file;
  s.base_cfg = Config::load((fs::path(s.o.systems_dir) / file).string());
  const fs::path target = fs::absolute(fs::path(s.o.systems_dir) / file).lexically_normal();
  const fs::path from = s.o.output.empty() ? fs::current_path() : fs::absolute(s.o.output).parent_path();
  const std::string rel = fs::relative(target, from).string();
  s.y["extends"] = rel.rfind("..", 0) == 0 ? target.string() : rel;
}

}  // namespace

void import_node(ImportState& s) {
  const ImportOptions& o = s.o;
  if (s.base) {
    extend(s, s.base->file);
  } else {
    extend(s, "common/bert_phase2.yaml");
    s.r.notes.push_back("no shipped hardware base for '" + s.dgxsystem + "'");
    if (s.nvidia) {
      s.y["launcher"]["type"] = "srun";
      s.y["launcher"]["srun"]["mpi"] = "pmix";  // run.sub: --mpi=${SLURM_MPI_TYPE:-pmix}
      s.r.origins.push_back("launcher.type srun: run.sub's launcher (no base describes this node)");
    }
    if (o.topology.empty()) describe_unknown_node(s);
  }
  if (o.topology.empty()) return;
  // The real node's hwloc XML (lstopo --of xml): an absolute path as given; a relative one is read from the
  // YAML's folder, so it is written relative to that.
  if (!fs::is_regular_file(o.topology)) throw UserError(Loc{o.topology}, "", "harness import --topology: cannot read the file");
  const fs::path given(o.topology);
  const fs::path from = o.output.empty() ? fs::current_path() : fs::absolute(o.output).parent_path();
  const std::string written = given.is_absolute() ? given.lexically_normal().string()
                                                  : fs::relative(fs::absolute(given).lexically_normal(), from).string();
  s.y["topology"] = YAML::Node(YAML::NodeType::Map);
  s.y["topology"]["xml"] = written;
  for (const char* k : {"synthetic", "gpu_numa_map"}) s.y["topology"][k] = YAML::Node(YAML::NodeType::Null);  // not the base's
  s.r.origins.push_back("topology.synthetic, topology.gpu_numa_map: none (--topology describes the node, not the base)");
  s.r.notes.push_back("topology.xml: " + written + " (--topology " + o.topology +
                      (given.is_absolute() || written == o.topology ? ")" : ", relative to the YAML's folder)"));
}

// A plan never counts the GPUs of the host importing it: without a base, DGXNGPU, --topology or --set the
// YAML lacks them.
void check_gpu_count(ImportState& s) {
  const YAML::Node& cy = s.y;  // const: operator[] does not add the key
  if (s.nvidia && !s.base && !cy["topology"] && !(cy["nodes"] && cy["nodes"]["gpus_per_node"]))
    s.lacks("nodes.gpus_per_node", "no GPU count: the config sets no DGXNGPU and no shipped hardware base describes '" +
                                       s.dgxsystem + "'; give the node with --topology NODE.xml (lstopo --of xml on a compute "
                                       "node) or --set nodes.gpus_per_node=N --set topology.synthetic='pack:2 numa:1 core:C pu:1' "
                                       "--set topology.assumed=true (a plan never counts the GPUs of the host importing it)");
}

}  // namespace bert::harness
