// Per-run walltime strings of the system YAML: minutes ("30") or [hh:]mm:ss ("01:15:00").
#pragma once
#include <string>

namespace bert::harness {

// Seconds; 0 for "" (no limit). Throws std::invalid_argument with the text on anything else.
double parse_walltime_seconds(const std::string& text);

}  // namespace bert::harness
