// Spawning a launched program in its own process group with its stdout/stderr on pipes, so the
// executor can stream its output and stop it (and everything it started) as one unit.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace bert::harness {

struct ChildSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // set on top of the harness's own environment
  std::string cwd = {};                    // working directory ("" = the harness's)
};

struct Child {
  pid_t pid = -1;          // also the process group id
  int out_fd = -1;         // read end of stdout (non-blocking), -1 once closed
  int err_fd = -1;         // read end of stderr (non-blocking), -1 once closed
  bool exited = false;
  int wait_status = 0;     // raw waitpid status once exited
};

// This process's environment as a map (what a started program inherits before ChildSpec::env).
std::map<std::string, std::string> process_environment();

// Starts argv[0] (PATH lookup) with stdin from /dev/null, default signal dispositions and an empty
// signal mask. Throws std::runtime_error("cannot start <argv0>: <reason>") when it cannot be executed.
Child spawn_child(const ChildSpec& spec);

// Sends `sig` to the child's whole process group (no-op once the group is gone).
void signal_group(const Child& c, int sig);

// Non-blocking reap; returns true when the child has exited (wait_status filled).
bool reap_child(Child& c);

// "exit status 3", "killed by signal 9 (Killed)".
std::string describe_wait_status(int wait_status);

}  // namespace bert::harness
