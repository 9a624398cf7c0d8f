#include "process/signal_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace bert::harness {
namespace {

volatile sig_atomic_t g_received = 0;
int g_pipe[2] = {-1, -1};
struct sigaction g_old_int, g_old_term, g_old_pipe, g_old_xfsz;

void on_signal(int sig) {
  int saved = errno;
  if (g_received == 0) g_received = sig;
  char c = 1;
  if (g_pipe[1] >= 0) (void)!write(g_pipe[1], &c, 1);
  errno = saved;
}

}  // namespace

SignalWatch::SignalWatch() {
  g_received = 0;
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe for signal handling failed");
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &g_old_pipe);
  sigaction(SIGXFSZ, &ign, &g_old_xfsz);
}

SignalWatch::~SignalWatch() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGPIPE, &g_old_pipe, nullptr);
  sigaction(SIGXFSZ, &g_old_xfsz, nullptr);
  close(g_pipe[0]);
  close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int SignalWatch::fd() const { return g_pipe[0]; }
int SignalWatch::received() const { return g_received; }

}  // namespace bert::harness
