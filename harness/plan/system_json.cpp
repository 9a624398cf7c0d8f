#include "harness/plan/system_json.h"

namespace bert::harness {

json make_system_json(const Config& cfg, const Plan& plan) {
  const binding::NodeTopology& t = plan.nodes.front().topology;
  int sockets = cfg.integer("system.host_processors_per_node") > 0
                    ? static_cast<int>(cfg.integer("system.host_processors_per_node"))
                    : t.packages;
  int gpus = plan.nodes.front().ranks.empty() || plan.nodes.front().ranks.front().binding.gpu < 0 ? 0 : plan.ranks_per_node;
  json j;
  j["submitter"] = cfg.str("system.submitter");
  j["division"] = enum_name(plan.experiment.division, kDivisionNames);
  j["status"] = cfg.str("system.status");
  j["system_name"] = plan.system_name;
  j["number_of_nodes"] = std::to_string(plan.num_nodes);
  j["host_processors_per_node"] = std::to_string(sockets);
  j["host_processor_model_name"] = cfg.str("system.host_processor_model_name");
  j["host_processor_core_count"] = sockets > 0 ? std::to_string(t.cores / sockets) : "";
  j["host_processor_vcpu_count"] = sockets > 0 ? std::to_string(t.pus / sockets) : "";
  for (const char* k : {"host_processor_frequency", "host_processor_caches", "host_processor_interconnect"}) j[k] = "";
  j["host_memory_capacity"] = cfg.str("system.host_memory_capacity");
  for (const char* k : {"host_storage_type", "host_storage_capacity"}) j[k] = "";
  j["host_networking"] = cfg.str("system.host_networking");
  for (const char* k : {"host_networking_topology", "host_memory_configuration"}) j[k] = "";
  j["accelerators_per_node"] = std::to_string(gpus);
  j["accelerator_model_name"] = cfg.str("system.accelerator_model_name");
  for (const char* k : {"accelerator_host_interconnect", "accelerator_frequency", "accelerator_on-chip_memories",
                        "accelerator_memory_configuration", "accelerator_memory_capacity", "accelerator_interconnect",
                        "accelerator_interconnect_topology"})
    j[k] = "";
  j["cooling"] = cfg.str("system.cooling");
  j["hw_notes"] = "";
  j["framework"] = cfg.str("system.framework");
  j["other_software_stack"] = json::object();
  j["operating_system"] = cfg.str("system.operating_system");
  j["sw_notes"] = "";
  for (const auto& [k, v] : cfg.string_map("system.json")) j[k] = v;
  return j;
}

}  // namespace bert::harness
