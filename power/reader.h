// A node's power reader: one reading in watts, or why there is none. One type per source
// (command_reader.cpp, ipmi_reader.cpp, redfish_reader.cpp, nvml_reader.cpp), made by make_reader.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "power/monitor_config.h"

namespace bert::power {

struct Reading {
  std::optional<double> watts;
  std::string error;  // why there is no reading (a failing or silent source)
};

class Reader {
 public:
  virtual ~Reader() = default;
  virtual Reading read() = 0;
  // Whether the reading covers the whole node (MLPerf power); nvml sums the GPUs only.
  virtual bool node_level() const { return true; }
};

// The reader of `cfg.source` for node `node` (its index in cfg.hosts). Throws std::runtime_error for
// a setting the source cannot work with (no BMC for the node, unreadable credentials, no NVML).
std::unique_ptr<Reader> make_reader(const MonitorConfig& cfg, int node);

// The first number in `text` ("123.5", " 2090 W"); empty when there is none.
std::optional<double> first_number(const std::string& text);

std::unique_ptr<Reader> make_command_reader(const MonitorConfig& cfg);
std::unique_ptr<Reader> make_ipmi_reader(const MonitorConfig& cfg, const std::string& bmc);
std::unique_ptr<Reader> make_redfish_reader(const MonitorConfig& cfg, const std::string& bmc);
std::unique_ptr<Reader> make_nvml_reader();

}  // namespace bert::power
