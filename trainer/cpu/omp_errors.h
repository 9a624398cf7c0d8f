// An exception leaving an OpenMP loop body ends the process (std::terminate): a failed oneDNN call or a
// failed allocation inside a parallel GEMM or attention loop would be a crash, not an error message.
// Run each body through OmpErrors::run and call rethrow() after the loop: the first exception goes on.
#pragma once
#include <exception>
#include <mutex>

namespace bert::cpu {

class OmpErrors {
 public:
  template <class Body>
  void run(Body&& body) noexcept {
    try {
      body();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace bert::cpu
