// Writes one synthetic BERT MLPerf log with our writer (results/mllog.h), the way the trainer logs:
// the corpus of the checker/scorer comparison tests against the official tools.
//   results_make_log --ruleset 5.0.0 --division closed --gbs 1536 --seed 7 --samples 2500000
//                    --minutes 5.5 --status success --start-ms 1700000000000 > result_0.txt
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <utility>

#include "results/mllog/mllog.h"

using namespace bert::results;

int main(int argc, char** argv) {
  CLI::App app{"synthetic BERT MLPerf log"};
  std::string ruleset = "5.0.0", division = "closed", status = "success";
  int64_t gbs = 1536, seed = 1234, samples = 2500000, start_ms = 1700000000000, eval_every = 150000;
  int64_t train_samples = -1;
  double minutes = 5.0, init_minutes = 2.0, accuracy = 0.7213;
  for (auto [name, v] : {std::pair{"--ruleset", &ruleset}, {"--division", &division}, {"--status", &status}})
    app.add_option(name, *v);
  for (auto [name, v] : {std::pair{"--gbs", &gbs}, {"--seed", &seed}, {"--eval-every", &eval_every},
                         {"--start-ms", &start_ms}})
    app.add_option(name, *v);
  app.add_option("--samples", samples, "samples trained when run_stop is logged (last eval point)");
  app.add_option("--train-samples", train_samples, "value of the train_samples line (default: --samples)");
  app.add_option("--minutes", minutes, "run_start to run_stop");
  app.add_option("--init-minutes", init_minutes, "init_start to init_stop");
  app.add_option("--accuracy", accuracy, "final eval accuracy");
  CLI11_PARSE(app, argc, argv);

  MLLogger log(stdout);
  int64_t now = start_ms;
  log.set_clock([&] { return now; });
  const bool old_rules = ruleset == "3.1.0" || ruleset == "4.0.0" || ruleset == "4.1.0";
  const bool with_status = ruleset == "3.1.0" || ruleset == "4.0.0";

  log.event(key::kCacheClear, true);
  log.start(key::kInitStart);
  log.event(key::kSubmissionBenchmark, "bert");
  if (old_rules) log.event(key::kSubmissionOrg, "Example");
  log.event(key::kSubmissionDivision, division);
  if (with_status) log.event(key::kSubmissionStatus, "onprem");
  if (old_rules) log.event(key::kSubmissionPlatform, "1xEXAMPLE");
  log.event(key::kSeed, seed);
  log.event(key::kGlobalBatchSize, gbs);
  const std::pair<const char*, json> hyperparameters[] = {
      {key::kDBatchSize, gbs / 8}, {key::kGradientAccumulationSteps, 1}, {key::kMaxSequenceLength, 512},
      {key::kMaxPredictionsPerSeq, 76}, {key::kOptLearningRateTrainingSteps, 7100}, {key::kNumWarmupSteps, 0},
      {key::kOptBaseLearningRate, 0.002}, {key::kOptLambEpsilon, 1e-06}, {key::kOptEpsilon, 1e-06},
      {key::kOptLambBeta1, 0.6}, {key::kOptLambBeta2, 0.7}, {key::kOptLambWeightDecayRate, 0.1},
      {key::kOptLearningRateWarmupSteps, 0}, {key::kOptLambLearningRateDecayPolyPower, 1.0},
      {key::kStartWarmupStep, 0}};
  for (const auto& [k, v] : hyperparameters) log.event(k, v);
  now += static_cast<int64_t>(std::llround(init_minutes * 60000));
  log.end(key::kInitStop);
  log.start(key::kRunStart);
  const int64_t run_start = now;
  log.start(key::kEpochStart, nullptr, json{{key::kEpochNum, 0}});
  log.start(key::kBlockStart, nullptr, json{{key::kFirstEpochNum, 0}, {key::kEpochCount, 1}});
  const int64_t run_ms = static_cast<int64_t>(std::llround(minutes * 60000));
  const int64_t evals = std::max<int64_t>(1, (samples + eval_every - 1) / eval_every);
  for (int64_t i = 1; i <= evals; ++i) {
    const int64_t at = std::min(samples, i * eval_every);
    now = run_start + run_ms * i / (evals + 1);
    log.start(key::kEvalStart, nullptr, json{{key::kEpochNum, at}});
    log.end(key::kEvalStop, nullptr, json{{key::kEpochNum, at}});
    const double acc = i == evals ? accuracy : 0.35 + (accuracy - 0.35) * static_cast<double>(i) / static_cast<double>(evals + 1);
    log.event(key::kEvalAccuracy, acc, json{{key::kEpochNum, at}});
  }
  now = run_start + run_ms;
  log.end(key::kBlockStop, nullptr, json{{key::kFirstEpochNum, 0}});
  log.end(key::kEpochStop, nullptr, json{{key::kEpochNum, samples}});
  log.event(key::kTrainSamples, train_samples < 0 ? samples : train_samples);
  log.event(key::kEvalSamples, 10000);
  log.end(key::kRunStop, nullptr, json{{key::kStatus, status}});
  return 0;
}
