// Runs a short helper command (cache clear, preflight probes) to completion and collects its
// combined output, killing its process group if it overstays `timeout_s`.
#pragma once
#include <string>

#include "harness/run/child_process.h"

namespace bert::harness {

struct Captured {
  bool started = false;
  std::string start_error;  // when it could not be started
  bool timed_out = false;
  int wait_status = 0;
  std::string output;       // stdout then stderr lines, in arrival order
  bool ok() const;          // started, not timed out, exit status 0
  std::string describe() const;  // "exit status 1: <last output line>" etc.
};

Captured run_capture(const ChildSpec& spec, double timeout_s);

}  // namespace bert::harness
