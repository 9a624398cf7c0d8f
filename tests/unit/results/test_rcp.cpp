#include <doctest/doctest.h>

#include <cmath>

#include "results/rcp.h"

using namespace bert::results;

namespace {
bool rel_eq(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fmax(std::fabs(a), std::fabs(b)); }

const rcp::Record* find(const std::vector<rcp::Record>& v, double bs) {
  for (const auto& r : v)
    if (r.bs == bs) return &r;
  return nullptr;
}
}  // namespace

// Reference values: the official RCP checker's statistics (mlperf-logging's rcp_checker/rcp_checker.py over
// training_<rs>/rcps_bert.json).
TEST_CASE("RCP table statistics equal the official checker's") {
  struct Row {
    double bs, mean, stdev, min;
    bool pruned;
  };
  const Row rows[] = {
      {256, 2549219.5555555555, 218406.13406770426, 2390441.5519584813, false},
      {448, 2414421.3333333335, 197392.47653603306, 2274732.0290379203, true},
      {1536, 2776278.222222222, 82207.5271103565, 2716514.575543456, false},
      {3072, 2764498.6666666665, 166119.33957778665, 2643732.3832027484, false},
      {4096, 2843989.3333333335, 116600.1061653033, 2759222.794395268, false},
      {4608, 2798080.0, 130963.70526218323, 2702871.338626705, true},
      {6144, 3319125.3333333335, 146691.13630155026, 3212483.0639822287, true},
      {6912, 3601920.0, 121792.77701013308, 3513378.4667561017, true},
      {8192, 4186112.0, 88430.92304030304, 4121824.037241757, false},
      {8704, 4273706.666666667, 134042.40427566197, 4176259.8369756606, false},
      {12288, 4465066.666666667, 88564.04543605717, 4400681.925886792, true},
      {13056, 4645333.333333333, 179017.32403317842, 4515190.407416511, true},
      {16384, 5505422.222222222, 144642.70949674584, 5400269.128703066, true},
  };
  const auto& t = rcp::bert_table();
  CHECK(t.full.size() == 13);
  CHECK(t.pruned.size() == 7);
  for (const auto& row : rows) {
    CAPTURE(row.bs);
    const auto* r = find(t.full, row.bs);
    REQUIRE(r != nullptr);
    CHECK(rel_eq(r->mean, row.mean));
    CHECK(rel_eq(r->stdev, row.stdev));
    CHECK(rel_eq(r->min_epochs, row.min));
    CHECK((find(t.pruned, row.bs) != nullptr) == row.pruned);
  }
}

TEST_CASE("interpolated RCPs equal the official checker's") {
  struct Row {
    double bs, lo, hi, mean, stdev, min;
  };
  const Row rows[] = {
      {576, 448, 4608, 2426226.2153846156, 195348.51434299152, 2286842.8689365676},
      {768, 448, 4608, 2443933.5384615385, 192282.57105342922, 2306737.776813311},
      {1024, 448, 4608, 2467543.3025641027, 188194.64666734615, 2333264.320564407},
      {1536, 448, 4608, 2514762.830769231, 180018.79789518003, 2386317.408222003},
      {13888, 13056, 16384, 4860355.555555555, 170423.67039907028, 4738756.363578735},
  };
  const auto& t = rcp::bert_table();
  for (const auto& row : rows) {
    CAPTURE(row.bs);
    auto r = rcp::interpolate(row.bs, *find(t.pruned, row.lo), *find(t.pruned, row.hi));
    CHECK(rel_eq(r.mean, row.mean));
    CHECK(rel_eq(r.stdev, row.stdev));
    CHECK(rel_eq(r.min_epochs, row.min));
  }
}

TEST_CASE("Student t CDF") {
  CHECK(rcp::student_t_cdf(10, 0) == doctest::Approx(0.5));
  // scipy.special.stdtr(24, -1.7108820799094275) = 0.05 (the one-sided 5% point for df = 24)
  CHECK(rcp::student_t_cdf(24, -1.7108820799094275) == doctest::Approx(0.05).epsilon(1e-12));
  CHECK(rcp::student_t_cdf(1, 1) == doctest::Approx(0.75).epsilon(1e-14));  // Cauchy
  CHECK(rcp::student_t_cdf(5, 2) + rcp::student_t_cdf(5, -2) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("RCP decision branches") {
  std::vector<double> slow(10, 3000000), fast(10, 1000000);
  CHECK(rcp::decide(448, slow, true).message == "RCP found");
  CHECK(rcp::decide(448, slow, true).passed);
  CHECK_FALSE(rcp::decide(448, fast, true).passed);
  CHECK(rcp::decide(1536, slow, true).message == "RCP Interpolation");
  CHECK(rcp::decide(1536, slow, false).message == "RCP found");  // full set has 1536
  CHECK(rcp::decide(256, slow, true).message == "RCP not found but slower convergence on smaller batch size");
  CHECK(rcp::decide(256, fast, true).message == "Missing RCP, please submit RCP with BS = 256");
  CHECK(rcp::decide(32768, slow, true).message == "Missing RCP, please submit RCP with BS = 32768");
  auto scaled = rcp::decide(448, std::vector<double>(10, 2300000), true);
  CHECK(scaled.passed);
  CHECK(rel_eq(scaled.norm_factor, 2414421.3333333335 / 2300000));
}

TEST_CASE("RCP reader: substring-picked lines, last eval before a successful run_stop") {
  const char* log =
      ":::MLLOG {\"time_ms\": 1, \"key\": \"global_batch_size\", \"value\": 448, \"metadata\": {}}\n"
      ":::MLLOG {\"time_ms\": 1, \"key\": \"submission_benchmark\", \"value\": \"bert\", \"metadata\": {}}\n"
      ":::MLLOG {\"time_ms\": 1, \"key\": \"eval_accuracy\", \"value\": 0.5, \"metadata\": {\"epoch_num\": 100.12345}}\n"
      ":::MLLOG {\"time_ms\": 1, \"key\": \"eval_accuracy\", \"value\": 0.73, \"metadata\": {\"epoch_num\": 2000.0006}}\n"
      ":::MLLOG {\"time_ms\": 1, \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
  auto f = rcp::read_submission(log, false);
  CHECK(f.error.empty());
  CHECK(f.converged);
  CHECK(f.samples == 2000.001);  // round(x, 3)
  CHECK(*f.bs == 448);
  auto aborted = rcp::read_submission(std::string(log).replace(std::string(log).find("success"), 7, "aborted"), false);
  CHECK_FALSE(aborted.converged);
  CHECK(aborted.samples == 1e9);
  auto no_status = rcp::read_submission(
      ":::MLLOG {\"time_ms\": 1, \"key\": \"run_stop\", \"value\": null, \"metadata\": {}}\n", false);
  CHECK_FALSE(no_status.error.empty());
}
