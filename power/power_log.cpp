#include "power/power_log.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

namespace bert::power {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string py_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', true); }

std::string mllog_line(int64_t time_ms, const char* event_type, const char* key, const std::string& value,
                       const std::string& metadata, std::source_location loc) {
  std::string file = loc.file_name();  // relative to the source tree, as the trainer's lines name theirs
  while (file.starts_with("../")) file.erase(0, 3);
  if (const size_t at = file.rfind("/power/"); at != std::string::npos && file.starts_with("/")) file = file.substr(at + 1);
  return fmt::format(R"(:::MLLOG {{"namespace": "", "time_ms": {}, "event_type": "{}", "key": "{}", "value": {}, )"
                     R"("metadata": {{"file": {}, "lineno": {}{}}}}})",
                     time_ms, event_type, key, value, json_string(file), loc.line(), metadata.empty() ? "" : ", " + metadata);
}

bool PowerLog::put(const std::string& line) {
  return std::fputs((line + "\n").c_str(), out_) >= 0 && std::fflush(out_) == 0;
}

bool PowerLog::start(int64_t t, const std::string& measurement_type, double conversion_eff) {
  return put(mllog_line(t, "INTERVAL_START", "power_measurement_start", "null", "")) &&
         put(mllog_line(t, "POINT_IN_TIME", "conversion_eff", py_float(conversion_eff),
                        "\"measurement_type\": " + json_string(measurement_type)));
}

bool PowerLog::reading(int64_t t, double watts, const std::string& host) {
  return put(mllog_line(t, "POINT_IN_TIME", "power_reading", py_float(watts), "\"host\": " + json_string(host)));
}

bool PowerLog::stop(int64_t t) { return put(mllog_line(t, "INTERVAL_END", "power_measurement_stop", "null", "")); }

}  // namespace bert::power
