#include <doctest/doctest.h>

#include "../temp_dir.h"
#include "harness/history/power_logs.h"
#include "harness/history/run_log.h"

using namespace bert::harness::history;

namespace {

std::string line(double t, const std::string& type, const std::string& key, const std::string& value, const std::string& meta) {
  return ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(int64_t(t)) + ", \"event_type\": \"" + type +
         "\", \"key\": \"" + key + "\", \"value\": " + value + ", \"metadata\": " + meta + "}\n";
}

}  // namespace

TEST_CASE("run log: eval curve, throughput between evals and the run's samples per second") {
  std::string log = line(1000, "INTERVAL_START", "run_start", "null", "{}");
  log += line(61000, "POINT_IN_TIME", "eval_accuracy", "0.3", "{\"epoch_num\": 6000}");
  log += line(121000, "POINT_IN_TIME", "eval_accuracy", "0.72", "{\"epoch_num\": 18000}");
  log += line(122000, "INTERVAL_END", "run_stop", "null", "{\"status\": \"success\"}");
  const RunLog r = read_run_log(log);
  REQUIRE(r.evals.size() == 2);
  CHECK(r.evals[1].samples == 18000);
  CHECK(r.evals[1].minutes == doctest::Approx(2));
  REQUIRE(r.throughput.size() == 2);
  CHECK(r.throughput[0].samples_per_s == doctest::Approx(100));  // 6000 in the first minute
  CHECK(r.throughput[1].samples_per_s == doctest::Approx(200));  // 12000 in the second
  CHECK(*r.samples_per_s == doctest::Approx(150));
  CHECK(r.stop_status == "success");
}

TEST_CASE("power logs: every node file of a run's power folder, minutes from run_start") {
  TempDir t;
  t.write("bert/power/result_0/node_1.txt", line(61000, "POINT_IN_TIME", "power_reading", "2100", "\"\"") +
                                                  line(1000, "POINT_IN_TIME", "power_reading", "2000", "\"\""));
  t.write("bert/power/result_0/node_0.txt", line(1000, "POINT_IN_TIME", "power_reading", "1900", "{\"host\": \"n0\"}"));
  const auto p = read_power_logs(t.path() / "bert", "result_0.txt", 1000.0);
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "node_0");
  CHECK(p[1].watts == std::vector<double>{2000, 2100});  // sorted by time
  CHECK(p[1].minutes[1] == doctest::Approx(1));
  CHECK(read_power_logs(t.path() / "bert", "result_1.txt", std::nullopt).empty());
}
