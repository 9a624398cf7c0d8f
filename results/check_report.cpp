// The official checker's report text (its two log handlers' `LEVEL - message` lines) and our JSON.
#include <algorithm>

#include "results/check.h"

namespace bert::results {

std::string format_report(const LogVerdict& v) {
  std::string out = "INFO - Running compliance on file: " + v.path + "\n";
  for (const auto& c : v.configs) out += "INFO -  Compliance checks: " + c + "\n";
  if (!v.parse_errors.empty()) {
    out += "WARNING -  Found parsing errors:\n";
    for (const auto& e : v.parse_errors) {
      const auto nl = e.find('\n');
      out += "WARNING -   " + e.substr(0, nl) + "\n";
      out += "WARNING - " + e.substr(nl + 1) + "\n";
    }
  }
  std::string block;
  const std::string sep = "\n" + std::string(30, '-') + "\n";
  for (const auto* list : {&v.warnings, &v.failures})
    for (const auto& m : *list) block += (block.empty() ? "" : sep) + m.text;
  if (!block.empty()) out += "WARNING -  " + block + "\n";
  if (!v.checker_error.empty()) out += "ERROR - checker stopped: " + v.checker_error + "\n";
  out += v.passed ? "INFO - SUCCESS\n" : "ERROR - FAILED\n";
  return out;
}

json to_json(const LogVerdict& v) {
  auto msgs = [](const std::vector<Message>& ms) {
    json a = json::array();
    for (const auto& m : ms) {
      json o = json::object();
      o["key"] = m.key.empty() ? json(nullptr) : json(m.key);
      o["message"] = m.text;
      a.push_back(o);
    }
    return a;
  };
  json j = json::object();
  j["file"] = v.path;
  j["passed"] = v.passed;
  j["verdict"] = v.passed ? "SUCCESS" : "FAILED";
  j["configs"] = v.configs;
  j["mllog_lines"] = v.mllog_lines;
  j["parse_errors"] = v.parse_errors;
  j["checker_error"] = v.checker_error.empty() ? json(nullptr) : json(v.checker_error);
  j["warnings"] = msgs(v.warnings);
  j["failures"] = msgs(v.failures);
  json keys = json::array();
  for (const auto& m : v.failures)
    if (!m.key.empty()) keys.push_back(m.key);
  j["failing_keys"] = keys;
  return j;
}

bool DirVerdict::all_passed() const {
  return std::all_of(logs.begin(), logs.end(), [](const LogVerdict& l) { return l.passed; }) &&
         std::none_of(power.begin(), power.end(), [](const PowerFinding& f) { return f.error; });
}

}  // namespace bert::results
