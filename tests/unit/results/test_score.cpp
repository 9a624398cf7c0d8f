#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "results/score.h"
#include "tests/unit/temp_dir.h"
#include "test_log.h"

using namespace bert::results;
using bert::results::test::make_log;

namespace {

using O = Olympic;
using Times = std::vector<std::optional<double>>;

// The log with run_stop's time_ms replaced by `time_ms` (e.g. NaN, Infinity, "nan").
std::string with_run_stop_time(const std::string& log, const std::string& time_ms) {
  const size_t at = log.find("\"key\": \"run_stop\"");
  REQUIRE(at != std::string::npos);
  const size_t line = log.rfind('\n', at) + 1;
  return log.substr(0, line) +
         std::regex_replace(log.substr(line), std::regex("\"time_ms\": [0-9]+"), "\"time_ms\": " + time_ms,
                            std::regex_constants::format_first_only);
}

}  // namespace

TEST_CASE("olympic mean: the fastest and the slowest are dropped and marked") {
  const Times t = {5.0, 3.0, 9.0, 4.0, 6.0};
  OlympicMean m = olympic_mean(t);
  REQUIRE(m.minutes);
  CHECK(*m.minutes == doctest::Approx(5.0));  // 4, 5, 6
  CHECK(m.roles == std::vector<O>{O::Counted, O::DroppedFastest, O::DroppedSlowest, O::Counted, O::Counted});
}

TEST_CASE("olympic mean: a failed run takes the slowest place, only the fastest is dropped") {
  OlympicMean m = olympic_mean({5.0, std::nullopt, 3.0, 9.0});
  REQUIRE(m.minutes);
  CHECK(*m.minutes == doctest::Approx(7.0));  // 5, 9
  CHECK(m.roles == std::vector<O>{O::Counted, O::Failed, O::DroppedFastest, O::Counted});
}

TEST_CASE("olympic mean: none with two failed runs or too few runs, and no run is marked dropped for it") {
  OlympicMean two_failed = olympic_mean({5.0, std::nullopt, 3.0, std::nullopt, 4.0});
  CHECK_FALSE(two_failed.minutes);
  CHECK(two_failed.roles == std::vector<O>{O::NoMean, O::Failed, O::NoMean, O::Failed, O::NoMean});
  OlympicMean two_runs = olympic_mean({5.0, 3.0});
  CHECK_FALSE(two_runs.minutes);
  CHECK(two_runs.roles == std::vector<O>{O::NoMean, O::NoMean});
  OlympicMean three = olympic_mean({5.0, 3.0, 4.0});
  CHECK(three.minutes == 4.0);
  CHECK(three.roles == std::vector<O>{O::DroppedSlowest, O::DroppedFastest, O::Counted});
}

TEST_CASE("score: runs in run order, each marked with its part in the olympic mean") {
  TempDir d;
  // result_i runs 10 + i minutes; result_10 and result_11 come after result_9.
  for (int i = 0; i < 12; ++i)
    d.write("result_" + std::to_string(i) + ".txt", make_log("", "closed", 60000, (10 + i) * 60000));
  ScoreOptions o;
  o.rcp = false;
  ScoreResult r = score_results_dir(d.dir, o);
  REQUIRE(r.runs.size() == 12);
  CHECK(r.runs[10].file == "result_10.txt");
  CHECK(r.runs[0].olympic == O::DroppedFastest);
  CHECK(r.runs[11].olympic == O::DroppedSlowest);
  for (int i = 1; i < 11; ++i) CHECK(r.runs[i].olympic == O::Counted);
  CHECK(r.olympic_minutes == doctest::Approx(15.5));
  const std::string table = format_table(r);
  CHECK(table.find("result_0.txt") < table.find("result_2.txt"));
  CHECK(table.find("result_2.txt") < table.find("result_10.txt"));
  CHECK(table.find("dropped (fastest)") != std::string::npos);
  CHECK(table.find("dropped (slowest)") != std::string::npos);
  CHECK(to_json(r)["runs"][11]["olympic"] == "dropped (slowest)");
}

TEST_CASE("score: a time to train that is NaN or infinite makes the run invalid, not ok") {
  for (const std::string bad : {"NaN", "Infinity", "-Infinity", "\"nan\""}) {
    CAPTURE(bad);
    TempDir d;
    for (int i = 0; i < 4; ++i) {
      std::string log = make_log("", "closed", 60000, (10 + i) * 60000);
      d.write("result_" + std::to_string(i) + ".txt", i == 2 ? with_run_stop_time(log, bad) : log);
    }
    ScoreOptions o;
    o.rcp = false;
    ScoreResult r = score_results_dir(d.dir, o);
    const RunScore& run = r.runs[2];
    CHECK(run.compliant);  // the compliance rules never look at run_stop's time
    CHECK_FALSE(run.valid);
    CHECK_FALSE(run.minutes);
    CHECK(run.olympic == O::Failed);
    CHECK(run.failure.find("time to train is not a finite number (run_start time_ms 61000, run_stop time_ms ") == 0);
    CHECK(r.dropped == 1);
    REQUIRE(r.olympic_minutes);
    CHECK(*r.olympic_minutes == doctest::Approx(12.0));  // 11 and 13; 10 is the fastest
    const std::string table = format_table(r);
    CHECK(table.find("INVALID: time to train is not a finite number") != std::string::npos);
    CHECK(table.find(" nan ") == std::string::npos);
  }
}

TEST_CASE("score: an aborted run has no time to train in the open division either (issue 37)") {
  TempDir d;
  for (int i = 0; i < 4; ++i) {
    std::string log = make_log("", "open", 60000, (10 + i) * 60000);
    if (i == 0) log = std::regex_replace(log, std::regex("\"status\": \"success\""), "\"status\": \"aborted\"");
    d.write("result_" + std::to_string(i) + ".txt", log);
  }
  ScoreOptions o;
  o.rcp = false;
  ScoreResult r = score_results_dir(d.dir, o);
  CHECK(r.runs[0].compliant);  // the open rules do not ask for success
  CHECK_FALSE(r.runs[0].valid);
  CHECK(r.runs[0].failure == "run_stop status aborted: the run did not reach the target");
  CHECK(r.dropped == 1);
  REQUIRE(r.olympic_minutes);
  CHECK(*r.olympic_minutes == doctest::Approx(12.5));  // the aborted run takes the slowest place; 11 (fastest) dropped
}
