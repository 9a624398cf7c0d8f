// Test helper: the Plan of a system YAML given as text, with --set overrides and a process environment
// (tools in bin_dir, /b by default; seeds 7, 8, ...).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/plan/build_plan.h"

inline bert::harness::Plan plan_from(const std::string& yaml, const std::string& file, std::vector<std::string> sets,
                                     std::map<std::string, std::string> env = {},
                                     const std::string& bin_dir = "/b") {
  bert::harness::Overrides ov;
  ov.sets = std::move(sets);
  ov.env = env;
  bert::harness::BuildOptions o;
  o.bin_dir = bin_dir;
  o.env = env;
  o.random_seed = [n = uint64_t{7}]() mutable { return n++; };
  return bert::harness::build_plan(bert::harness::Config::from_text(yaml, file, ov), o);
}

// The Plan of a shipped system (systems/<name>), tools in /opt/bert/bin. local_cuda.yaml (this machine's
// first GPU) is planned as on a 2-core machine with one GPU, as its golden dry-run is.
inline bert::harness::Plan shipped_plan(const std::string& name) {
  bert::harness::Overrides ov;
  if (name == "local_cuda.yaml") ov.sets = {"topology.synthetic=pack:1 numa:1 core:2 pu:1", "topology.gpu_numa_map=[0]"};
  bert::harness::BuildOptions o;
  o.bin_dir = "/opt/bert/bin";
  return bert::harness::build_plan(bert::harness::Config::load(std::string(BERT_SOURCE_DIR) + "/systems/" + name, ov), o);
}
