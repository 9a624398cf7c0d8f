#include "power/run_command.h"

#include <sys/wait.h>

#include <utility>

#include "process/capture.h"

namespace bert::power {

std::string CommandResult::describe() const {
  if (!error.empty()) return error;
  if (timed_out) return "no answer within the deadline (killed)";
  if (exit_code < 0) return "killed by a signal";
  return "exit code " + std::to_string(exit_code);
}

CommandResult run_command(const std::vector<std::string>& argv, double timeout_s,
                          const std::map<std::string, std::string>& env) {
  harness::Captured c = harness::run_capture(harness::ChildSpec{argv, env}, timeout_s);
  CommandResult r;
  r.error = std::move(c.start_error);
  r.timed_out = c.timed_out;
  r.output = std::move(c.output);
  if (c.started && !c.timed_out && WIFEXITED(c.wait_status)) r.exit_code = WEXITSTATUS(c.wait_status);
  return r;
}

}  // namespace bert::power
