// Runs fn(rank) in `n` forked processes and returns their exit codes (a crash counts as 128+signal).
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <vector>

namespace bert::dist::test {

inline std::vector<int> fork_ranks(int n, const std::function<int(int)>& fn) {
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int code = 3;
      try {
        code = fn(r);
      } catch (...) {
        code = 4;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

}  // namespace bert::dist::test
