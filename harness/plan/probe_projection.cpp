#include "harness/plan/probe_projection.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace bert::harness {

using ojson = nlohmann::ordered_json;

ojson ProbeProjection::to_json() const {
  return ojson{{"measured_at", measured_at},   {"config_name", config_name},
               {"world_size", world_size},     {"global_batch", global_batch},
               {"log", log},                   {"method", method},
               {"samples_per_s", samples_per_s}, {"measured", measured},
               {"dropped", dropped},           {"init_s", init_s},
               {"eval_s", eval_s},             {"basis", basis},
               {"target", target},             {"rcp", rcp},
               {"rcp_mean_samples", rcp_mean_samples}, {"rcp_max_samples", rcp_max_samples},
               {"eval_start", eval_start},     {"eval_interval", eval_interval},
               {"projected_minutes", projected_minutes}, {"slowest_minutes", slowest_minutes},
               {"margin", margin},             {"nexp", nexp},
               {"run_walltime", run_walltime}, {"job_walltime", job_walltime},
               {"set_lines", set_lines},       {"note", note}};
}

ProbeProjection ProbeProjection::from_json(const ojson& j) {
  ProbeProjection p;
  j.at("measured_at").get_to(p.measured_at);
  j.at("config_name").get_to(p.config_name);
  j.at("world_size").get_to(p.world_size);
  j.at("global_batch").get_to(p.global_batch);
  j.at("log").get_to(p.log);
  j.at("method").get_to(p.method);
  j.at("samples_per_s").get_to(p.samples_per_s);
  j.at("measured").get_to(p.measured);
  j.at("dropped").get_to(p.dropped);
  j.at("init_s").get_to(p.init_s);
  j.at("eval_s").get_to(p.eval_s);
  p.basis = j.value("basis", j.at("rcp").get<std::string>().empty() ? "" : "rcp");  // optional: probes before it
  p.target = j.value("target", 0.0);
  j.at("rcp").get_to(p.rcp);
  j.at("rcp_mean_samples").get_to(p.rcp_mean_samples);
  j.at("rcp_max_samples").get_to(p.rcp_max_samples);
  j.at("eval_start").get_to(p.eval_start);
  j.at("eval_interval").get_to(p.eval_interval);
  j.at("projected_minutes").get_to(p.projected_minutes);
  j.at("slowest_minutes").get_to(p.slowest_minutes);
  j.at("margin").get_to(p.margin);
  j.at("nexp").get_to(p.nexp);
  j.at("run_walltime").get_to(p.run_walltime);
  j.at("job_walltime").get_to(p.job_walltime);
  j.at("set_lines").get_to(p.set_lines);
  j.at("note").get_to(p.note);
  return p;
}

std::string probe_file(const std::string& output_dir) { return output_dir + "/probe/probe.json"; }

std::optional<ProbeProjection> load_probe(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream in(path);
  ojson j = ojson::parse(in, nullptr, false);
  if (!in || j.is_discarded()) throw std::runtime_error(path + ": not a probe file (JSON) this harness wrote");
  try {
    return ProbeProjection::from_json(j);
  } catch (const ojson::exception& e) {
    throw std::runtime_error(path + ": not a probe file this harness can read: " + e.what());
  }
}

}  // namespace bert::harness
