// One node's monitor for one run: a reading every interval into its power log until SIGTERM, SIGINT,
// SIGHUP or a stop file (a launcher that does not pass signals on), then the stop line. A failing reading is reported on stderr (the harness shows it and
// marks the run's energy), never a reason to stop: the next interval reads again.
#pragma once
#include <cstdio>
#include <string>

#include "power/monitor_config.h"
#include "power/reader.h"

namespace bert::power {

struct MonitorStats {
  long readings = 0;
  long failures = 0;
};

// Writes to `out` until a stop signal or until `stop_file` exists (checked every interval; "" = none);
// `host` names the node in every reading.
MonitorStats run_monitor(const MonitorConfig& cfg, Reader& reader, const std::string& host, std::FILE* out,
                         const std::string& stop_file = "");

}  // namespace bert::power
