// Benchmark: our compliance checker vs the official mlperf-logging checker on the same 100 BERT logs
// (shaped like NVIDIA's: ~400 weights_initialization lines, evals every 150k samples), in one run.
// The official checker runs in ONE Python process over all logs (no interpreter start per log); its
// time is measured inside that process around the checking loop, and also as wall time.
//   checker_speed [--logs 100] [--python PATH] [--ruleset 5.0.0]
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "results/check.h"
#include "results/mllog/mllog.h"

namespace fs = std::filesystem;
using namespace bert::results;

namespace {

void write_log(const fs::path& file, int i) {
  std::FILE* f = std::fopen(file.c_str(), "w");
  MLLogger log(f);
  int64_t now = 1700000000000 + i * 1000000;
  log.set_clock([&] { return now; });
  log.event(key::kCacheClear, true);
  for (int r = 0; r < 8; ++r) log.start(key::kInitStart);
  log.event(key::kSubmissionBenchmark, "bert");
  log.event(key::kSubmissionOrg, "Example");
  log.event(key::kSubmissionDivision, "closed");
  log.event(key::kSubmissionStatus, "onprem");
  log.event(key::kSubmissionPlatform, "1xEXAMPLE");
  log.event(key::kSeed, 1000 + i);
  for (const char* k : {key::kGlobalBatchSize, key::kDBatchSize, key::kGradientAccumulationSteps,
                        key::kMaxPredictionsPerSeq, key::kOptLearningRateTrainingSteps, key::kNumWarmupSteps})
    log.event(k, 448);
  for (int t = 0; t < 398; ++t) log.event(key::kWeightsInitialization, nullptr, json{{"tensor", fmt::format("bert.encoder.layer.{}.w{}", t / 16, t % 16)}});
  for (const char* k : {key::kOptBaseLearningRate, key::kOptLambEpsilon, key::kOptEpsilon, key::kOptLambBeta1,
                        key::kOptLambBeta2, key::kOptLambWeightDecayRate, key::kOptLearningRateWarmupSteps,
                        key::kOptLambLearningRateDecayPolyPower, key::kStartWarmupStep})
    log.event(k, 1e-06);
  now += 120000;
  log.end(key::kInitStop);
  log.start(key::kRunStart);
  log.start(key::kEpochStart, nullptr, json{{key::kEpochNum, 0}});
  log.start(key::kBlockStart, nullptr, json{{key::kFirstEpochNum, 0}, {key::kEpochCount, 1}});
  int64_t samples = 0;
  for (int e = 1; e <= 17; ++e) {
    samples = e * 150000 + i;
    now += 18000;
    log.event("tracked_stats", json{{"throughput", 9000.5}}, json{{"step", samples / 448}});
    log.start(key::kEvalStart, nullptr, json{{key::kEpochNum, samples}});
    log.end(key::kEvalStop, nullptr, json{{key::kEpochNum, samples}});
    log.event(key::kEvalAccuracy, e == 17 ? 0.7205 : 0.35 + e * 0.02, json{{key::kEpochNum, samples}});
  }
  log.end(key::kBlockStop, nullptr, json{{key::kFirstEpochNum, 0}});
  log.end(key::kEpochStop, nullptr, json{{key::kEpochNum, samples}});
  log.event(key::kTrainSamples, samples);
  log.event(key::kEvalSamples, 10000);
  if (i % 10 != 9) log.end(key::kRunStop, nullptr, json{{key::kStatus, key::kStatusSuccess}});  // some fail
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"checker speed: ours vs the official mlperf-logging compliance checker"};
  int n = 100;
  std::string python = BERT_BENCH_PYTHON, ruleset = "4.0.0";
  app.add_option("--logs", n, "number of logs")->capture_default_str();
  app.add_option("--python", python, "python with mlperf-logging")->capture_default_str();
  app.add_option("--ruleset", ruleset)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const fs::path dir = fs::temp_directory_path() / fmt::format("checker_speed_{}", static_cast<long>(::getpid()));
  fs::create_directories(dir);
  std::vector<fs::path> files;
  for (int i = 0; i < n; ++i) {
    files.push_back(dir / fmt::format("result_{}.txt", i));
    write_log(files.back(), i);
  }
  const auto bytes = fs::file_size(files[0]);
  size_t lines = 0;
  {
    std::ifstream in(files[0]);
    for (std::string l; std::getline(in, l);) ++lines;
  }

  using clock = std::chrono::steady_clock;
  CheckOptions opts;
  opts.ruleset = ruleset;
  int ours_pass = 0;
  double ours_best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    int pass = 0;
    const auto t0 = clock::now();
    for (const auto& f : files) pass += check_log_file(f, opts).passed ? 1 : 0;
    ours_best = std::min(ours_best, std::chrono::duration<double>(clock::now() - t0).count());
    ours_pass = pass;
  }

  const fs::path driver = dir / "official.py";
  std::ofstream(driver) << "import logging, sys, time\n"
                           "from mlperf_logging.compliance_checker import mlp_compliance\n"
                           "logging.disable(logging.CRITICAL)\n"
                           "rs = sys.argv[1]; files = sys.argv[2:]\n"
                           "t0 = time.perf_counter(); passed = 0\n"
                           "for f in files:\n"
                           "    mlp_compliance.enqueued_configs.clear()\n"
                           "    c = mlp_compliance.make_checker('training', rs, False, False)\n"
                           "    passed += bool(c.check_file(f, f'training_{rs}/common.yaml'))\n"
                           "print(passed, time.perf_counter() - t0)\n";
  std::string cmd = python + " " + driver.string() + " " + ruleset;
  for (const auto& f : files) cmd += " " + f.string();
  const auto w0 = clock::now();
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  int off_pass = -1;
  double off_loop = 0;
  if (!p || std::fscanf(p.get(), "%d %lf", &off_pass, &off_loop) != 2) {
    std::fprintf(stderr, "checker_speed: could not run the official checker with %s\n", python.c_str());
    fs::remove_all(dir);
    return 2;
  }
  p.reset();
  const double off_wall = std::chrono::duration<double>(clock::now() - w0).count();
  fs::remove_all(dir);

  fmt::print("{} BERT logs of {} lines ({} KiB each), ruleset {}\n", n, lines, bytes / 1024, ruleset);
  fmt::print("ours:     {:8.3f} s  (best of 3, in process)         pass {}/{}\n", ours_best, ours_pass, n);
  fmt::print("official: {:8.3f} s  (checking loop, one process)    pass {}/{}\n", off_loop, off_pass, n);
  fmt::print("official: {:8.3f} s  (wall, with interpreter start)\n", off_wall);
  fmt::print("speed-up: {:.1f}x (loop), {:.1f}x (wall)\n", off_loop / ours_best, off_wall / ours_best);
  return off_pass == ours_pass ? 0 : 1;
}
