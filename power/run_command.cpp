#include "power/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace bert::power {

std::string CommandResult::describe() const {
  if (!error.empty()) return error;
  if (timed_out) return "no answer within the deadline (killed)";
  if (exit_code < 0) return "killed by a signal";
  return "exit code " + std::to_string(exit_code);
}

CommandResult run_command(const std::vector<std::string>& argv, double timeout_s,
                          const std::map<std::string, std::string>& env) {
  CommandResult r;
  int fds[2];
  if (argv.empty() || ::pipe2(fds, O_CLOEXEC) != 0) {
    r.error = "cannot start a command: " + std::string(argv.empty() ? "no argv" : std::strerror(errno));
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    ::execvp(args[0], args.data());
    const std::string msg = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // every writer closed: the command ended (or closed its output)
    if (r.output.size() < (1u << 20)) r.output.append(buf, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  if (r.timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (!r.timed_out && WIFEXITED(status) && r.exit_code == 127 && r.output.starts_with("cannot run "))
    r.error = r.output.substr(0, r.output.find('\n'));
  return r;
}

}  // namespace bert::power
