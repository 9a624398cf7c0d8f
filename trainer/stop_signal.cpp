#include "trainer/stop_signal.h"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <system_error>
#include <thread>

namespace bert::trainer {
namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void on_stop_signal(int) { g_stop_requested.store(true); }

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

bool stop_requested() { return g_stop_requested.load(); }

void start_stop_signal_thread() {
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    std::thread([set] {
      for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) == 0) g_stop_requested.store(true);
      }
    }).detach();
  } catch (const std::system_error&) {  // no thread to be had: the handler alone, as before
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
}

}  // namespace bert::trainer
