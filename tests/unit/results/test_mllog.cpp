#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "results/mllog/mllog.h"
#include "results/mllog/pyjson.h"

using namespace bert::results;

TEST_CASE("format_mllog_line: official key order and Python json.dumps spacing") {
  json md = json::object();
  md["epoch_num"] = 150562;
  auto line = format_mllog_line(1700000000123, EventType::PointInTime, "eval_accuracy", 0.7205, md, "train.cpp", 88);
  CHECK(line ==
        ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000123, \"event_type\": \"POINT_IN_TIME\", "
        "\"key\": \"eval_accuracy\", \"value\": 0.7205, \"metadata\": {\"file\": \"train.cpp\", "
        "\"lineno\": 88, \"epoch_num\": 150562}}");
}

TEST_CASE("format_mllog_line: interval events, null value, metadata overriding caller info") {
  json md = json::object();
  md["lineno"] = 7;
  auto s = format_mllog_line(5, EventType::IntervalStart, "init_start", nullptr, md, "a.cpp", 3, "GPU0");
  CHECK(s == ":::MLLOG {\"namespace\": \"GPU0\", \"time_ms\": 5, \"event_type\": \"INTERVAL_START\", "
             "\"key\": \"init_start\", \"value\": null, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 7}}");
  auto e = format_mllog_line(6, EventType::IntervalEnd, "init_stop", nullptr, json::object(), "a.cpp", 4);
  CHECK(e.find("\"event_type\": \"INTERVAL_END\"") != std::string::npos);
}

TEST_CASE("MLLogger: fixed clock, call-site file and line, one flushed line per event") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  MLLogger log(f);
  log.set_clock([] { return int64_t{42}; });
  const int line = __LINE__ + 1;
  log.event(key::kSeed, 1234);
  log.end(key::kRunStop, nullptr, json{{"status", key::kStatusSuccess}});
  log.set_enabled(false);
  log.event(key::kSeed, 1);  // not written
  std::rewind(f);
  char buf[4096];
  std::string first = std::fgets(buf, sizeof buf, f);
  std::string second = std::fgets(buf, sizeof buf, f);
  CHECK(std::fgets(buf, sizeof buf, f) == nullptr);
  std::fclose(f);

  REQUIRE(first.back() == '\n');
  auto parsed = pyjson::loads(first.substr(9, first.size() - 10));
  REQUIRE(parsed.ok);
  CHECK(parsed.value["time_ms"] == 42);
  CHECK(parsed.value["key"] == "seed");
  CHECK(parsed.value["value"] == 1234);
  CHECK(parsed.value["metadata"]["lineno"] == line);
  // Inside the source tree the file is logged relative to its root, like mllog's root_dir.
  CHECK(parsed.value["metadata"]["file"] == "tests/unit/results/test_mllog.cpp");
  CHECK(second.find("\"metadata\": {\"file\": \"tests/unit/results/test_mllog.cpp\", \"lineno\": " +
                    std::to_string(line + 1) + ", \"status\": \"success\"}}") != std::string::npos);
}
