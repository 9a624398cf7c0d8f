#include "harness/run/step_runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace bert::harness {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void drain(int& fd, int source, int stream, OutputRouter& router) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      router.feed(source, stream, std::string_view(buf, size_t(n)));
      continue;
    }
    if (n < 0 && (errno == EINTR)) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close(fd);  // EOF or a real error: this stream is done
    fd = -1;
    return;
  }
}

bool failed(int st) { return !(WIFEXITED(st) && WEXITSTATUS(st) == 0); }

}  // namespace

StepResult run_step(const std::vector<ChildSpec>& procs, OutputRouter& router, const StepOptions& opts,
                    const SignalWatch* signals) {
  StepResult res;
  const auto t0 = Clock::now();
  std::vector<Child> kids;
  for (size_t i = 0; i < procs.size(); ++i) {
    try {
      kids.push_back(spawn_child(procs[i]));
    } catch (const std::exception& e) {
      res.outcome = StepOutcome::StartFailed;
      res.failed_process = int(i);
      res.message = e.what();
      break;
    }
  }

  bool stopping = false, killed = false;
  Clock::time_point stop_at{}, all_exited_at{};
  bool all_exited_seen = false;
  auto begin_stop = [&](StepOutcome why, std::string msg) {
    if (stopping) return;
    stopping = true;
    stop_at = Clock::now();
    if (res.outcome == StepOutcome::Completed) {
      res.outcome = why;
      res.message = std::move(msg);
    }
    if (opts.stop_ranks && opts.stop_ranks()) return;
    for (auto& k : kids)
      if (!k.exited) signal_group(k, SIGTERM);
  };
  if (res.outcome == StepOutcome::StartFailed) begin_stop(StepOutcome::StartFailed, res.message);

  for (;;) {
    std::vector<pollfd> pfds;
    std::vector<std::pair<size_t, int>> who;  // (kid, stream)
    if (signals) pfds.push_back({signals->fd(), POLLIN, 0});
    for (size_t i = 0; i < kids.size(); ++i) {
      if (kids[i].out_fd >= 0) { pfds.push_back({kids[i].out_fd, POLLIN, 0}); who.push_back({i, 1}); }
      if (kids[i].err_fd >= 0) { pfds.push_back({kids[i].err_fd, POLLIN, 0}); who.push_back({i, 2}); }
    }
    bool all_exited = true;
    for (auto& k : kids) all_exited = k.exited && all_exited;
    if (all_exited && who.empty()) break;

    poll(pfds.data(), nfds_t(pfds.size()), 100);
    size_t base = signals ? 1 : 0;
    for (size_t j = 0; j < who.size(); ++j) {
      if (pfds[base + j].revents == 0) continue;
      Child& k = kids[who[j].first];
      int& fd = who[j].second == 1 ? k.out_fd : k.err_fd;
      drain(fd, int(who[j].first), who[j].second, router);
    }

    for (size_t i = 0; i < kids.size(); ++i) {
      Child& k = kids[i];
      bool was = k.exited;
      if (!reap_child(k) || was) continue;
      if (failed(k.wait_status) && res.failed_process < 0 && !stopping) {
        res.failed_process = int(i);
        res.wait_status = k.wait_status;
        begin_stop(StepOutcome::ProcessFailed, "process " + std::to_string(i) + " ended with " +
                                                   describe_wait_status(k.wait_status));
      }
      // Leftovers of an exited rank (its own children) go with it.
      if (stopping) signal_group(k, killed ? SIGKILL : SIGTERM);
    }
    if (signals && signals->received() && !stopping) {
      res.signal = signals->received();
      begin_stop(StepOutcome::Interrupted, std::string("interrupted by ") + strsignal(res.signal));
    }
    if (router.main_write_errno() != 0 && !stopping)
      begin_stop(StepOutcome::LogWriteFailed,
                 std::string("writing the log failed: ") + std::strerror(router.main_write_errno()));
    if (opts.walltime_s > 0 && since(t0) > opts.walltime_s && !stopping)
      begin_stop(StepOutcome::WalltimeExceeded, "walltime of " + std::to_string(int(opts.walltime_s)) +
                                                    " s exceeded");
    if (stopping && !killed && since(stop_at) > opts.term_grace_s) {
      killed = true;
      for (auto& k : kids) signal_group(k, SIGKILL);
    }
    bool now_all_exited = true;
    for (auto& k : kids) now_all_exited = k.exited && now_all_exited;
    if (now_all_exited && !all_exited_seen) {
      all_exited_seen = true;
      all_exited_at = Clock::now();
    }
    // Every launched process is gone but something it started still holds the pipes open.
    if (all_exited_seen && since(all_exited_at) > 2.0) {
      for (auto& k : kids) {
        signal_group(k, SIGKILL);
        if (k.out_fd >= 0) drain(k.out_fd, int(&k - kids.data()), 1, router);
        if (k.err_fd >= 0) drain(k.err_fd, int(&k - kids.data()), 2, router);
        if (k.out_fd >= 0) { close(k.out_fd); k.out_fd = -1; }
        if (k.err_fd >= 0) { close(k.err_fd); k.err_fd = -1; }
      }
    }
  }
  router.finish();
  if (stopping) res.stop_seconds = since(stop_at);
  if (router.main_write_errno() != 0 && res.outcome == StepOutcome::Completed) {
    res.outcome = StepOutcome::LogWriteFailed;
    res.message = std::string("writing the log failed: ") + std::strerror(router.main_write_errno());
  }
  res.seconds = since(t0);
  return res;
}

}  // namespace bert::harness
