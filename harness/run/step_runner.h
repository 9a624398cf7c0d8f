// Runs one launch step (all ranks of one experiment, or one srun/mpirun process) to its end:
// streams output through the router, stops every process group when one fails, when a signal
// arrives, when the log cannot be written or when the walltime is exceeded.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "process/child_process.h"
#include "harness/run/output_router.h"
#include "process/signal_watch.h"

namespace bert::harness {

enum class StepOutcome { Completed, ProcessFailed, Interrupted, LogWriteFailed, WalltimeExceeded, StartFailed };

struct StepOptions {
  double term_grace_s = 10;   // SIGTERM, then SIGKILL after this long
  double walltime_s = 0;      // 0 = no limit
  // How to ask the ranks to stop when SIGTERM to the launched process groups would not reach them
  // (srun exits on SIGTERM without forwarding it). Returns false to fall back to SIGTERM.
  std::function<bool()> stop_ranks;
};

struct StepResult {
  StepOutcome outcome = StepOutcome::Completed;
  int failed_process = -1;    // index into the process list of the first one that failed
  int wait_status = 0;        // its raw wait status
  int signal = 0;             // Interrupted: the signal the harness received
  std::string message;        // human reason for anything but Completed
  double seconds = 0;         // wall time of the step
  double stop_seconds = -1;   // from the decision to stop until every process was gone
};

StepResult run_step(const std::vector<ChildSpec>& procs, OutputRouter& router, const StepOptions& opts,
                    const SignalWatch* signals);

}  // namespace bert::harness
