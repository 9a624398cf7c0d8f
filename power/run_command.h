// A reader's one external program (ipmitool, a user's command): run with a deadline, its output
// captured, killed with its process group when it takes longer (process/capture.h's run_capture),
// described in the words of a reading's error.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace bert::power {

struct CommandResult {
  bool timed_out = false;
  int exit_code = -1;      // -1 when it did not exit normally
  std::string output;      // stdout and stderr together
  std::string error;       // could not start it
  bool ok() const { return error.empty() && !timed_out && exit_code == 0; }
  std::string describe() const;  // "exit code 1", "timed out after 2 s", ...
};

// argv[0] from PATH; `env` added to this process's environment for the child only.
CommandResult run_command(const std::vector<std::string>& argv, double timeout_s,
                          const std::map<std::string, std::string>& env = {});

}  // namespace bert::power
