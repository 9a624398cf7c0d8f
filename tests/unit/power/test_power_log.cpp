// The monitor's lines as results/ reads them (the official parser's grammar) and scores them.
#include <doctest/doctest.h>

#include <cstdio>

#include "../temp_dir.h"
#include "power/monitor_config.h"
#include "power/power_log.h"
#include "results/power.h"

using namespace bert;

TEST_CASE("numbers are written as Python's json.dumps writes floats") {
  CHECK(power::py_float(500) == "500.0");
  CHECK(power::py_float(123.5) == "123.5");
  CHECK(power::py_float(0.94) == "0.94");
  CHECK(power::py_float(1e20) == "1e+20");
}

TEST_CASE("a power log written by PowerLog parses, and its energy is watts x time to train") {
  TempDir t;
  const std::string dir = t.file("bert/power/result_0");
  std::filesystem::create_directories(dir);
  std::FILE* f = std::fopen((dir + "/node_0.txt").c_str(), "w");
  REQUIRE(f);
  power::PowerLog log(f);
  const int64_t t0 = 1700000000000;
  REQUIRE(log.start(t0, "AC", 0.9));
  for (int i = 1; i <= 100; ++i) REQUIRE(log.reading(t0 + 100 * i, i <= 50 ? 200 : 400, "node7"));
  REQUIRE(log.stop(t0 + 10000));
  std::fclose(f);
  const auto files = results::read_power_files(t.file("bert"), "result_0");
  REQUIRE(files.size() == 1);
  const results::ParsedLog& p = files[0].log;
  CHECK(p.errors.empty());
  CHECK(p.fatal.empty());
  REQUIRE(p.records.size() == 103);
  CHECK(*p.records[1].key_str() == "conversion_eff");
  CHECK(p.records[1].value["metadata"]["measurement_type"] == "AC");
  CHECK(p.records[2].value["metadata"]["host"] == "node7");
  CHECK(p.records[2].file_line == 3);
  // a 10 s window at a mean of 300 W over a 10 s time to train, at 0.9: 2700 J
  const results::RunEnergy e = results::run_energy(t.file("bert"), "result_0", {double(t0), double(t0 + 10000)});
  CHECK(e.flaw == "");
  REQUIRE(e.joules);
  CHECK(*e.joules == doctest::Approx(0.9 * 300 * 10).epsilon(1e-12));
  // a run of 20 s the readings leave half uncovered: no energy, the flaw named
  const results::RunEnergy half = results::run_energy(t.file("bert"), "result_0", {double(t0), double(t0 + 20000)});
  CHECK_FALSE(half.joules);
  CHECK(half.flaw.find("node_0.txt:1: the readings span") != std::string::npos);
}

TEST_CASE("the monitor's config goes to JSON and back") {
  power::MonitorConfig c;
  c.source = power::Source::Redfish;
  c.interval_s = 0.5;
  c.ipmi_reading = power::IpmiReading::Sensor;
  c.hosts = {"a", "b"};
  c.bmcs = {"10.0.0.1:623", ""};
  const power::MonitorConfig back = power::MonitorConfig::from_json(c.to_json());
  CHECK(back.source == power::Source::Redfish);
  CHECK(back.ipmi_reading == power::IpmiReading::Sensor);
  CHECK(back.interval_s == 0.5);
  CHECK(back.bmcs == c.bmcs);
  CHECK(c.to_json()["source"] == "redfish");
  CHECK_THROWS(power::MonitorConfig::from_json(power::json::parse(R"({"source": "smoke"})")));
}
