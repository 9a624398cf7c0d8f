// A numeric range with open or closed ends, and the one wording for a value outside it. Used by the
// system-YAML schema (harness/config) and the run-config key table (trainer/run_config_keys.h).
#pragma once
#include <cstdio>
#include <limits>
#include <string>

namespace bert {

struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;  // exclusive bounds
  bool max_open = false;

  // "" when v is inside, else "must be >= 1, got 0" (`text`: the value as written).
  std::string problem(double v, const std::string& text) const {
    if (min_open ? !(v > min) : !(v >= min)) return "must be " + std::string(min_open ? "> " : ">= ") + num(min) + ", got " + text;
    if (max_open ? !(v < max) : !(v <= max)) return "must be " + std::string(max_open ? "< " : "<= ") + num(max) + ", got " + text;
    return "";
  }
  // ">= 1, < 1e+06" for documentation ("" = unbounded).
  std::string describe() const {
    std::string s;
    if (min > -std::numeric_limits<double>::infinity()) s += (min_open ? "> " : ">= ") + num(min);
    if (max < std::numeric_limits<double>::infinity()) s += (s.empty() ? "" : ", ") + std::string(max_open ? "< " : "<= ") + num(max);
    return s;
  }
  static std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }
};

}  // namespace bert
