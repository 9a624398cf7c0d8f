// Runs a short helper command (cache clear, preflight probes) to completion and collects its
// combined output, killing its process group if it overstays `timeout_s`.
#pragma once
#include <string>

#include "process/child_process.h"
#include "process/signal_watch.h"

namespace bert::harness {

struct Captured {
  bool started = false;
  std::string start_error;  // when it could not be started
  bool timed_out = false;
  int interrupted = 0;      // the signal that made the harness stop it
  int wait_status = 0;
  std::string output;       // stdout then stderr lines, in arrival order
  bool ok() const;          // started, not timed out, exit status 0
  std::string describe() const;  // "exit status 1: <last output line>" etc.
};

// With `signals`, a SIGINT/SIGTERM to the harness is forwarded (SIGTERM to the command's group,
// SIGKILL 5 s later) and the command ends as interrupted.
Captured run_capture(const ChildSpec& spec, double timeout_s, const SignalWatch* signals = nullptr);

}  // namespace bert::harness
