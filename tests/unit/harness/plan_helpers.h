// Test helper: the Plan of a system YAML given as text, with --set overrides and a process environment
// (tools in /b, seeds 7, 8, ...).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/plan/build_plan.h"

inline bert::harness::Plan plan_from(const std::string& yaml, const std::string& file, std::vector<std::string> sets,
                                     std::map<std::string, std::string> env = {}) {
  bert::harness::Overrides ov;
  ov.sets = std::move(sets);
  ov.env = env;
  bert::harness::BuildOptions o;
  o.bin_dir = "/b";
  o.env = env;
  o.random_seed = [n = uint64_t{7}]() mutable { return n++; };
  return bert::harness::build_plan(bert::harness::Config::from_text(yaml, file, ov), o);
}
