#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "results/mllog/pyjson.h"

using namespace bert::results;

TEST_CASE("float_repr matches Python repr()") {
  CHECK(pyjson::float_repr(1.0) == "1.0");
  CHECK(pyjson::float_repr(0.0) == "0.0");
  CHECK(pyjson::float_repr(-0.0) == "-0.0");
  CHECK(pyjson::float_repr(1e-06) == "1e-06");
  CHECK(pyjson::float_repr(0.0001) == "0.0001");
  CHECK(pyjson::float_repr(0.00012) == "0.00012");
  CHECK(pyjson::float_repr(1.5e-05) == "1.5e-05");
  CHECK(pyjson::float_repr(0.72) == "0.72");
  CHECK(pyjson::float_repr(1e15) == "1000000000000000.0");
  CHECK(pyjson::float_repr(1e16) == "1e+16");
  CHECK(pyjson::float_repr(1.2345e20) == "1.2345e+20");
  CHECK(pyjson::float_repr(123456.789) == "123456.789");
  CHECK(pyjson::float_repr(0.1 + 0.2) == "0.30000000000000004");
  CHECK(pyjson::float_repr(1e308 * 10) == "Infinity");
  CHECK(pyjson::float_repr(-1e308 * 10) == "-Infinity");
  CHECK(pyjson::float_repr(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(pyjson::float_repr(5e-324) == "5e-324");
}

TEST_CASE("dumps: ensure_ascii escapes and separators") {
  json v = json::object();
  v["s"] = "a\"b\\c\n\t\x01\x7f";
  v["u"] = "\xc3\xa9\xf0\x9f\x98\x80";  // é and an emoji (surrogate pair)
  v["l"] = json::array({1, 2.5, true, nullptr});
  v["e"] = json::object();
  v["a"] = json::array();
  CHECK(pyjson::dumps(v) ==
        "{\"s\": \"a\\\"b\\\\c\\n\\t\\u0001\\u007f\", \"u\": \"\\u00e9\\ud83d\\ude00\", "
        "\"l\": [1, 2.5, true, null], \"e\": {}, \"a\": []}");
}

TEST_CASE("loads: Python acceptances") {
  auto r = pyjson::loads(" {\"a\": NaN, \"b\": -Infinity, \"c\": Infinity, \"a\": 3} ");
  REQUIRE(r.ok);
  CHECK(r.value.size() == 3);
  CHECK(r.value["a"] == 3);  // duplicate key: last value wins
  CHECK(std::isinf(r.value["b"].get<double>()));
  CHECK(pyjson::loads("1e400").value.get<double>() == std::numeric_limits<double>::infinity());
  CHECK(pyjson::loads("123456789012345678901234567890").ok);
  CHECK(pyjson::loads("\"\\ud83d\\ude00\"").value == "\xf0\x9f\x98\x80");
  CHECK(pyjson::loads("\"\xe9\"").value == "\xc3\xa9");  // latin-1 byte becomes U+00E9
  CHECK(pyjson::loads("-0").value.is_number_integer());
  CHECK(pyjson::loads("1.5").value.is_number_float());
}

TEST_CASE("loads: Python rejections are decode errors") {
  for (const char* bad : {"", "{", "{\"a\": 1,}", "[1,]", "01", "1.", "{'a': 1}", "\"a\tb\"", "{\"a\" 1}",
                          "nan", "-", "\"\\x\"", "\"\\u12\"", "{} x", "tru"}) {
    CAPTURE(bad);
    auto r = pyjson::loads(bad);
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.too_deep);
  }
  std::string deep(5000, '[');
  auto r = pyjson::loads(deep);
  CHECK_FALSE(r.ok);
  CHECK(r.too_deep);
}
