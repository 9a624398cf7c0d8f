#include "harness/history/set_record.h"

#include <fmt/format.h>

namespace bert::harness::history {

std::string SetRecord::time_basis() const {
  if (score_min) return "score (olympic mean)";
  if (mean_min) return "plain mean of the compliant runs (not an MLPerf score)";
  return "none";
}

std::string SetRecord::rcp_word() const { return !rcp_checked ? "not checked" : rcp_passed ? "PASS" : "FAIL"; }

std::string SetRecord::label() const {
  return fmt::format("#{} {} ({})", id, system_name, recorded_at.substr(0, 16));
}

ojson to_json(const RunRecord& r) {
  return ojson{{"index", r.index},
               {"seed", r.seed ? ojson(*r.seed) : ojson()},
               {"status", r.status},
               {"time_to_train_min", r.ttt_min ? ojson(*r.ttt_min) : ojson()},
               {"samples_to_converge", r.samples_to_converge ? ojson(*r.samples_to_converge) : ojson()},
               {"samples_per_s", r.samples_per_s ? ojson(*r.samples_per_s) : ojson()},
               {"energy_j", r.energy_j ? ojson(*r.energy_j) : ojson()},
               {"compliant", r.compliant ? ojson(*r.compliant) : ojson()},
               {"compliance_failure", r.compliance_failure},
               {"olympic", r.olympic},
               {"result_file", r.result_file}};
}

ojson to_json(const SetRecord& s) {
  auto opt = [](const std::optional<double>& v) { return v ? ojson(*v) : ojson(); };
  ojson refs = ojson::array();
  for (const ReferenceVerdict& r : s.references)
    refs.push_back({{"figure", r.figure}, {"target", r.target}, {"tolerance", r.tolerance}, {"value", opt(r.value)},
                    {"basis", r.basis}, {"verdict", r.verdict}});
  ojson runs = ojson::array();
  for (const RunRecord& r : s.runs) runs.push_back(to_json(r));
  return ojson{{"id", s.id},
               {"recorded_at", s.recorded_at},
               {"origin", s.origin},
               {"system_name", s.system_name},
               {"config_name", s.config_name},
               {"system_file", s.system_file},
               {"system_file_sha256", s.system_file_sha256},
               {"harness_commit", s.harness_commit},
               {"harness_dirty", s.harness_dirty},
               {"nodes", s.nodes},
               {"ranks_per_node", s.ranks_per_node},
               {"accelerator", s.accelerator},
               {"precision", s.precision},
               {"backend", s.backend},
               {"container_image", s.container_image},
               {"ruleset", s.ruleset},
               {"division", s.division},
               {"datestamp", s.datestamp},
               {"output_dir", s.output_dir},
               {"results_dir", s.results_dir},
               {"nexp", s.nexp},
               {"interrupted", s.interrupted},
               {"score_min", opt(s.score_min)},
               {"mean_time_to_train_min", opt(s.mean_min)},
               {"time_to_train_min", opt(s.time_to_train())},
               {"time_to_train_basis", s.time_basis()},
               {"energy_j", opt(s.energy_j)},
               {"rcp", s.rcp_word()},
               {"rcp_message", s.rcp_message},
               {"references", refs},
               {"runs", runs}};
}

}  // namespace bert::harness::history
