// Independent tasks 0..n-1 run by worker processes (fork: libhdf5 serialises threads, processes
// scale; each worker's memory is its own and its peak RSS is measured). A worker takes one task
// at a time from a shared counter; workers = 1 runs the tasks in this process. The first
// exception stops the other workers (SIGTERM) and comes back as a DataError with its message once
// all have ended; what a killed worker was writing is the caller's to remove (.tmp files).
#pragma once
#include <cstdint>
#include <functional>

namespace bert::data {

struct PoolProgress {
  int done = 0, total = 0;
  uint64_t weight_done = 0;  // sum of weight(task) over finished tasks (e.g. input bytes)
  double seconds = 0;
};

struct PoolReport {
  int done = 0;
  int64_t sum = 0;          // sum of the tasks' return values
  uint64_t weight = 0;
  double seconds = 0;
  long peak_rss_kb = 0;     // largest peak RSS of one worker (this process when workers = 1)
};

// `progress` (may be null) is called after each finished task and every 30 s, from this process.
PoolReport run_in_workers(int tasks, int workers, const std::function<int64_t(int)>& task,
                          const std::function<uint64_t(int)>& weight, const std::function<void(const PoolProgress&)>& progress);

}  // namespace bert::data
