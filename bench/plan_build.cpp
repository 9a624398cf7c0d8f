// Benchmark: time to load a system YAML, build its Plan and print it (dry-run text + JSON).
// Default system: the 171-node Samsung DGX A100 config (1368 ranks). Goal: < 0.5 s. Prints figures only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include "harness/config/config.h"
#include "harness/plan/build_plan.h"
#include "harness/plan/print_plan.h"

int main(int argc, char** argv) {
  using namespace bert::harness;
  using clock = std::chrono::steady_clock;
  std::string system = argc > 1 ? argv[1] : BERT_SOURCE_DIR "/systems/samsung_dgxa100_171x8x12x1.yaml";
  int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<double> total, build, print;
  size_t ranks = 0, text_bytes = 0, json_bytes = 0;
  try {
    for (int i = 0; i < std::max(reps, 1); ++i) {
      auto t0 = clock::now();
      Config cfg = Config::load(system, {});
      BuildOptions bo;
      bo.bin_dir = "/opt/bert/bin";
      bo.random_seed = [n = uint64_t{0}]() mutable { return ++n; };
      Plan plan = build_plan(cfg, bo);
      auto t1 = clock::now();
      std::ostringstream text;
      print_dry_run(plan, text);
      std::string json = plan.to_json().dump(2);
      auto t2 = clock::now();
      ranks = static_cast<size_t>(plan.world_size);
      text_bytes = text.str().size();
      json_bytes = json.size();
      build.push_back(std::chrono::duration<double>(t1 - t0).count());
      print.push_back(std::chrono::duration<double>(t2 - t1).count());
      total.push_back(std::chrono::duration<double>(t2 - t0).count());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::sort(total.begin(), total.end());
  std::sort(build.begin(), build.end());
  std::sort(print.begin(), print.end());
  std::printf("plan_build: %s\n", system.c_str());
  std::printf("  ranks %zu, dry-run text %zu bytes, plan JSON %zu bytes, %zu repetitions\n", ranks, text_bytes, json_bytes, total.size());
  std::printf("  load+build  min %.4f s  median %.4f s\n", build.front(), build[build.size() / 2]);
  std::printf("  print       min %.4f s  median %.4f s (text + JSON)\n", print.front(), print[print.size() / 2]);
  std::printf("  total       min %.4f s  median %.4f s  (goal < 0.5 s)\n", total.front(), total[total.size() / 2]);
  return 0;
}
