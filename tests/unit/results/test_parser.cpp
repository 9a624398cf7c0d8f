#include <doctest/doctest.h>

#include <cmath>

#include "results/log_parser.h"
#include "results/pyvalue.h"

using namespace bert::results;

namespace {
const char* kLine = ":::MLLOG {\"namespace\": \"\", \"time_ms\": 5, \"event_type\": \"POINT_IN_TIME\", \"key\": \"seed\", "
                    "\"value\": 1, \"metadata\": {\"file\": \"a.py\", \"lineno\": 3}}";
}

TEST_CASE("lines end at \\n, \\r\\n and a lone \\r; non-MLLOG lines are not counted") {
  std::string text = std::string("hello\r") + kLine + "\r\nnoise\n" + kLine + "\r" + kLine;
  auto log = parse_log(text);
  CHECK(log.mllog_lines == 3);
  REQUIRE(log.records.size() == 3);
  CHECK(log.records[0].lineno == 0);
  CHECK(log.records[2].lineno == 2);
  CHECK(log.records[1].timestamp == 5.0);
}

TEST_CASE("the payload starts after the last token; prefixes are dropped") {
  auto log = parse_log(std::string("0: garbage :::MLLOG junk ") + kLine + "  \t");
  REQUIRE(log.records.size() == 1);
  CHECK(log.records[0].line == kLine);
  CHECK(log.records[0].value["metadata"]["lineno"] == 3);
}

TEST_CASE("soft parse errors keep the line index and checking goes on") {
  std::string text = std::string(":::MLLOG {bad json\n") + ":::MLLOG \n" +
                     ":::MLLOG {\"time_ms\": \"12x\", \"key\": \"a\", \"value\": 1, \"metadata\": {}}\n" + kLine;
  auto log = parse_log(text);
  CHECK(log.errors.size() == 3);
  CHECK(log.fatal.empty());
  REQUIRE(log.records.size() == 1);
  CHECK(log.records[0].lineno == 3);
}

TEST_CASE("lines the official parser crashes on are fatal") {
  for (const char* bad : {":::MLLOG {\"time_ms\": 1, \"value\": 1, \"metadata\": {}}",
                          ":::MLLOG {\"time_ms\": 1, \"key\": \"a\", \"metadata\": {}}",
                          ":::MLLOG {\"time_ms\": 1, \"key\": \"a\", \"value\": 1}",
                          ":::MLLOG {\"time_ms\": null, \"key\": \"a\", \"value\": 1, \"metadata\": {}}",
                          ":::MLLOG {\"time_ms\": [1], \"key\": \"a\", \"value\": 1, \"metadata\": {}}",
                          ":::MLLOG [1, 2]", ":::MLLOG 3"}) {
    CAPTURE(bad);
    auto log = parse_log(std::string(kLine) + "\n" + bad + "\n" + kLine);
    CHECK_FALSE(log.fatal.empty());
    CHECK(log.fatal.starts_with("line 1: "));
  }
}

TEST_CASE("time_ms goes through Python float()") {
  CHECK(*py::parse_float_string(" 1_700_000 ") == 1700000.0);
  CHECK(*py::parse_float_string("1e3") == 1000.0);
  CHECK(*py::parse_float_string(".5") == 0.5);
  CHECK(*py::parse_float_string("5.") == 5.0);
  CHECK(std::isinf(*py::parse_float_string("-Infinity")));
  CHECK(std::isnan(*py::parse_float_string("nan")));
  for (const char* bad : {"12x", "1__0", "_1", "1_", "", ".", "0x10", "1e", "in f", "1_.5"}) {
    CAPTURE(bad);
    CHECK_FALSE(py::parse_float_string(bad));
  }
  bool value_error = false;
  CHECK(*py::to_float(json(true), value_error) == 1.0);
  CHECK_FALSE(py::to_float(json(nullptr), value_error));
  CHECK_FALSE(value_error);
  CHECK_FALSE(py::to_float(json("abc"), value_error));
  CHECK(value_error);
}

TEST_CASE("Python semantics of `in` and comparisons") {
  CHECK(py::contains(json::object({{"a", 1}}), "a") == py::Outcome::True);
  CHECK(py::contains(json("has epoch_num inside"), "epoch_num") == py::Outcome::True);
  CHECK(py::contains(json::array({"x", "epoch_num"}), "epoch_num") == py::Outcome::True);
  CHECK(py::contains(json(nullptr), "a") == py::Outcome::Raised);
  CHECK(py::contains(json(3), "a") == py::Outcome::Raised);
  CHECK(py::compare(json("1"), ">", json(0)) == py::Outcome::Raised);
  CHECK(py::compare(json(true), ">", json(0)) == py::Outcome::True);
  CHECK(py::equal(json(1), json(1.0)));
  CHECK(py::equal(json(true), json(1)));
  CHECK_FALSE(py::equal(json("1"), json(1)));
}
