// results/power_checks.cpp's rows on small logs: each flaw named with its file:line and check.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "../temp_dir.h"
#include "results/power.h"

using namespace bert;

namespace {

std::string line(int64_t t, const char* type, const char* key, const std::string& value, const std::string& md = "") {
  return fmt::format(R"(:::MLLOG {{"namespace": "", "time_ms": {}, "event_type": "{}", "key": "{}", "value": {}, "metadata": {{{}}}}})",
                     t, type, key, value, md) + "\n";
}

// A run 1700000010000..1700000070000 and a node log of `n` readings every `step` ms from t0.
struct Set {
  TempDir t;
  std::filesystem::path bench = t.path() / "results/sys/bert";
  Set() {
    t.write("results/sys/bert/result_0.txt",
            line(1700000010000, "INTERVAL_START", "run_start", "null") + line(1700000070000, "INTERVAL_END", "run_stop", "null", R"("status": "success")"));
  }
  void node(const std::string& text, int k = 0) { t.write(fmt::format("results/sys/bert/power/result_0/node_{}.txt", k), text); }
  std::vector<results::PowerFinding> check(std::optional<int> nodes = std::nullopt) {
    return results::check_power_dir(bench, {bench / "result_0.txt"}, {nodes});
  }
};

std::string log(int64_t t0, int n, int step, bool eff = true, bool stop = true) {
  std::string s = line(t0, "INTERVAL_START", "power_measurement_start", "null");
  if (eff) s += line(t0, "POINT_IN_TIME", "conversion_eff", "0.94", R"("measurement_type": "AC")");
  for (int i = 1; i <= n; ++i) s += line(t0 + int64_t(i) * step, "POINT_IN_TIME", "power_reading", "300.0", R"("host": "n1")");
  if (stop) s += line(t0 + int64_t(n) * step, "INTERVAL_END", "power_measurement_stop", "null");
  return s;
}

bool has(const std::vector<results::PowerFinding>& fs, const std::string& check, const std::string& where_end = "") {
  for (const auto& f : fs)
    if (f.check == check && f.where.ends_with(where_end)) return true;
  return false;
}

}  // namespace

TEST_CASE("a sound log has no finding") {
  Set s;
  s.node(log(1700000010000, 61, 1000));
  const auto f = s.check(1);
  for (const auto& x : f) MESSAGE(results::format_finding(x));
  CHECK(f.empty());
}

TEST_CASE("each flaw by its check and file:line") {
  Set s;
  s.node(log(1700000010000, 30, 2000, false, false));  // 2 s apart, no efficiency, no stop
  auto f = s.check(2);
  CHECK(has(f, "reading_rate", "node_0.txt:2"));
  CHECK(has(f, "min_readings"));
  CHECK(has(f, "stop"));
  CHECK(has(f, "conversion_eff"));
  CHECK(has(f, "nodes_of_run"));
  Set late;
  late.node(log(1700000030000, 61, 1000));  // starts 20 s into the run
  f = late.check();
  CHECK(has(f, "covers_run", "node_0.txt:1"));
  Set same;  // the real v4.0 flaw: the stop line has the start's time
  same.node(log(1700000010000, 61, 1000) + line(1700000010000, "INTERVAL_END", "power_measurement_stop", "null"));
  f = same.check();
  CHECK(has(f, "stop", "node_0.txt:65"));
  CHECK(has(f, "increasing_times", "node_0.txt:65"));
  const results::RunEnergy e = results::run_energy(same.bench, "result_0", {1700000010000, 1700000070000});
  CHECK_FALSE(e.joules);
}

TEST_CASE("the package checker's own power checks: a missing folder, a gap in the names, unequal counts") {
  Set s;
  s.t.write("results/sys/bert/result_1.txt", "");
  s.t.write("results/sys/bert/result_2.txt", "");
  s.node(log(1700000010000, 61, 1000));
  s.t.write("results/sys/bert/power/result_1/node_1.txt", "");
  s.t.write("results/sys/bert/power/result_1/node_2.txt", "");
  const auto v = results::official_power_check(s.bench / "power", {s.bench / "result_0.txt", s.bench / "result_1.txt", s.bench / "result_2.txt"});
  CHECK(v.failing == std::set<std::string>{"result_1", "result_2"});
}
