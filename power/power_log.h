// One node's power log as MLLOG lines, in mlperf_logging's layout and JSON style (json.dumps: ", " and
// ": ", floats as repr): power_measurement_start, conversion_eff (metadata measurement_type),
// power_reading (metadata host), power_measurement_stop; and a switch's interconnect_power_est. Each
// line is flushed as it is written, so a killed monitor loses nothing already measured.
#pragma once
#include <cstdint>
#include <cstdio>
#include <source_location>
#include <string>

namespace bert::power {

int64_t now_ms();  // the wall clock, as the trainer's MLLOG time_ms

// A number as Python's json.dumps writes a float (500.0, 123.5, 0.94).
std::string py_float(double v);
// One line without the newline; `metadata` is the inside of the object ("" or "\"host\": \"n1\"").
std::string mllog_line(int64_t time_ms, const char* event_type, const char* key, const std::string& value,
                       const std::string& metadata, std::source_location loc = std::source_location::current());
std::string json_string(const std::string& s);

class PowerLog {
 public:
  explicit PowerLog(std::FILE* out) : out_(out) {}
  bool start(int64_t t, const std::string& measurement_type, double conversion_eff);
  bool reading(int64_t t, double watts, const std::string& host);
  bool stop(int64_t t);

 private:
  bool put(const std::string& line);
  std::FILE* out_;
};

}  // namespace bert::power
