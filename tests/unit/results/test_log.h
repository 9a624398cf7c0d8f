// Logs for the results unit tests.
#pragma once
#include <cstdio>
#include <string>

#include "results/mllog/mllog.h"

namespace bert::results::test {

// A passing closed 5.0.0 BERT log from our writer, with hooks to drop or alter lines.
inline std::string make_log(const std::string& skip = "", const std::string& division = "closed",
                            int64_t init_ms = 60000, int64_t run_ms = 0) {
  std::FILE* f = std::tmpfile();
  MLLogger log(f);
  int64_t now = 1000;
  log.set_clock([&] { return now; });
  auto ev = [&](const char* k, const json& v = nullptr, const json& md = json::object()) {
    if (skip != k) log.event(k, v, md);
  };
  ev(key::kCacheClear, true);
  ev(key::kInitStart);
  ev(key::kSubmissionBenchmark, "bert");
  ev(key::kSubmissionDivision, division);
  for (const char* k : {key::kGlobalBatchSize, key::kGradientAccumulationSteps, key::kOptBaseLearningRate,
                        key::kOptLambEpsilon, key::kOptLearningRateTrainingSteps, key::kOptLearningRateWarmupSteps,
                        key::kNumWarmupSteps, key::kStartWarmupStep, key::kOptLambBeta1, key::kOptLambBeta2,
                        key::kOptLambWeightDecayRate})
    ev(k, 1);
  now += init_ms;
  ev(key::kInitStop);
  ev(key::kRunStart);
  ev(key::kBlockStart, nullptr, json{{key::kFirstEpochNum, 0}, {key::kEpochCount, 1}});
  ev(key::kEvalStart, nullptr, json{{key::kEpochNum, 100}});
  ev(key::kEvalStop, nullptr, json{{key::kEpochNum, 100}});
  ev(key::kEvalAccuracy, 0.725, json{{key::kEpochNum, 100}});
  ev(key::kBlockStop, nullptr, json{{key::kFirstEpochNum, 0}});
  ev(key::kTrainSamples, 100);
  ev(key::kEvalSamples, 10000);
  now += run_ms;
  ev(key::kRunStop, nullptr, json{{key::kStatus, key::kStatusSuccess}});
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

}  // namespace bert::results::test
