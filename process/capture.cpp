#include "process/capture.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>

namespace bert::harness {

bool Captured::ok() const {
  return started && !timed_out && !interrupted && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

std::string Captured::describe() const {
  if (!started) return start_error;
  std::string last;
  size_t end = output.find_last_not_of("\n ");
  if (end != std::string::npos) {
    size_t begin = output.rfind('\n', end);
    last = output.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  }
  std::string what = interrupted ? std::string("interrupted") : timed_out ? "timed out" : describe_wait_status(wait_status);
  return last.empty() ? what : what + ": " + last;
}

Captured run_capture(const ChildSpec& spec, double timeout_s, const SignalWatch* signals) {
  Captured c;
  Child k;
  try {
    k = spawn_child(spec);
  } catch (const std::exception& e) {
    c.start_error = e.what();
    return c;
  }
  c.started = true;
  auto t0 = std::chrono::steady_clock::now();
  bool killed = false;
  double term_at = -1;
  while (k.out_fd >= 0 || k.err_fd >= 0 || !k.exited) {
    pollfd p[2];
    nfds_t n = 0;
    int* fds[2];
    for (int* fd : {&k.out_fd, &k.err_fd})
      if (*fd >= 0) {
        fds[n] = fd;
        p[n++] = {*fd, POLLIN, 0};
      }
    poll(p, n, 50);
    for (nfds_t i = 0; i < n; ++i) {
      if (!p[i].revents) continue;
      char buf[8192];
      ssize_t r = read(*fds[i], buf, sizeof(buf));
      if (r > 0) c.output.append(buf, size_t(r));
      else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(*fds[i]);
        *fds[i] = -1;
      }
    }
    reap_child(k);
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (signals && signals->received() && !c.interrupted && !k.exited) {
      c.interrupted = signals->received();
      signal_group(k, SIGTERM);
      term_at = waited;
    }
    if (!killed && term_at >= 0 && waited > term_at + 5) {
      signal_group(k, SIGKILL);
      killed = true;
    }
    if (!killed && waited > timeout_s) {
      c.timed_out = !k.exited;
      signal_group(k, SIGKILL);
      killed = true;
    }
    if (killed && waited > std::min(timeout_s, term_at >= 0 ? term_at : timeout_s) + 10) {  // something detached still holds the pipes
      for (int* fd : {&k.out_fd, &k.err_fd})
        if (*fd >= 0) { close(*fd); *fd = -1; }
      if (!k.exited) { waitpid(k.pid, &k.wait_status, 0); k.exited = true; }
    }
  }
  c.wait_status = k.wait_status;
  return c;
}

}  // namespace bert::harness
