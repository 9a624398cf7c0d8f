// The output tree of one experiment set, under plan.experiment.output_dir:
//   plan.json, run.yaml, configs/run_<NN>.yaml, logs/<datestamp>_<NN>.log (+ .ranks.log),
//   results/<system>/bert/result_<i-1>.txt, systems/<system>.json, state.json, summary.md, plots/.
#pragma once
#include <string>
#include <string_view>

#include "common/user_error.h"

namespace bert::harness {

struct OutputTree {
  std::string root;
  std::string system;     // results/<system>/
  std::string datestamp;  // yymmddHHMMSSnnnnnnnnn, as run.sub's DATESTAMP
  int nexp = 1;

  std::string plan_json() const { return root + "/plan.json"; }
  std::string state_json() const { return root + "/state.json"; }
  std::string summary_md() const { return root + "/summary.md"; }
  std::string plots_dir() const { return root + "/plots"; }
  std::string logs_dir() const { return root + "/logs"; }
  std::string results_dir() const { return root + "/results/" + system + "/bert"; }
  std::string systems_json() const { return root + "/systems/" + system + ".json"; }
  std::string index(int i) const;  // experiment i (1-based) as "01".."NN"
  std::string log(int i) const { return logs_dir() + "/" + datestamp + "_" + index(i) + ".log"; }
  std::string ranks_log(int i) const { return logs_dir() + "/" + datestamp + "_" + index(i) + ".ranks.log"; }
  std::string result(int i) const { return results_dir() + "/result_" + std::to_string(i - 1) + ".txt"; }
  std::string config(int i) const { return root + "/configs/run_" + index(i) + ".yaml"; }
};

std::string make_datestamp();

// Creates every directory of the tree and proves it writable (a probe file), and that the disk has
// at least `min_free_bytes`; throws UserError with the path and the reason otherwise.
void prepare_output_tree(const OutputTree& t, unsigned long long min_free_bytes);

// Writes `path` through `path.tmp` + fsync + rename, so readers never see a partial file.
// Throws UserError naming the file and the errno text.
void write_file_atomic(const std::string& path, std::string_view content);

std::string read_file(const std::string& path);  // throws UserError when unreadable

unsigned long long free_bytes(const std::string& dir);  // 0 when unknown

}  // namespace bert::harness
