// SIGINT/SIGTERM while experiments run: the handler only records the signal and wakes poll()
// through a self-pipe; the executor forwards it to the ranks and winds the set down.
#pragma once

namespace bert::harness {

class SignalWatch {
 public:
  SignalWatch();   // installs the handlers, ignores SIGPIPE and SIGXFSZ (writes then fail with errno)
  ~SignalWatch();  // restores the previous handlers
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  int fd() const;        // readable once a signal arrived
  int received() const;  // 0, SIGINT or SIGTERM (the first one received)
};

}  // namespace bert::harness
