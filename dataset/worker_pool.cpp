#include "dataset/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "formats/data_error.h"

namespace bert::data {
namespace {

using Clock = std::chrono::steady_clock;

// Counters the workers share with the parent (an anonymous shared mapping).
struct Shared {
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::atomic<uint64_t> weight{0};
  std::atomic<int64_t> sum{0};
  std::atomic<int> failed{0};
  char error[2048]{};
};

void fail(Shared& sh, const char* what) {
  if (sh.failed.exchange(1) == 0) std::snprintf(sh.error, sizeof sh.error, "%s", what);
}

void work(int tasks, const std::function<int64_t(int)>& task, const std::function<uint64_t(int)>& weight, Shared& sh,
          const std::function<void()>& after_each) {
  while (!sh.failed.load()) {
    const int k = sh.next.fetch_add(1);
    if (k >= tasks) return;
    try {
      sh.sum += task(k);
      sh.weight += weight ? weight(k) : 0;
      ++sh.done;
    } catch (const std::exception& e) {
      fail(sh, e.what());
      return;
    }
    if (after_each) after_each();
  }
}

}  // namespace

PoolReport run_in_workers(int tasks, int workers, const std::function<int64_t(int)>& task,
                          const std::function<uint64_t(int)>& weight, const std::function<void(const PoolProgress&)>& progress) {
  const auto t0 = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw DataError("cannot map shared memory for the worker processes");
  Shared& sh = *new (mem) Shared();
  struct Unmap {
    void* p;
    ~Unmap() { munmap(p, sizeof(Shared)); }
  } unmap{mem};
  auto report_progress = [&] {
    if (progress) progress(PoolProgress{sh.done.load(), tasks, sh.weight.load(), seconds()});
  };

  PoolReport report;
  workers = std::max(1, std::min(workers, tasks));
  if (workers == 1 || tasks == 0) {
    work(tasks, task, weight, sh, report_progress);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    report.peak_rss_kb = ru.ru_maxrss;
  } else {
    std::fflush(nullptr);
    const pid_t parent = getpid();
    std::vector<pid_t> pids;
    for (int w = 0; w < workers; ++w) {
      const pid_t pid = fork();
      if (pid < 0) {
        fail(sh, (std::string("cannot start a worker process: ") + std::strerror(errno)).c_str());
        break;
      }
      if (pid == 0) {
        // A killed parent takes its workers along: none goes on writing into an output a rerun resumes.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(2);
        work(tasks, task, weight, sh, nullptr);
        std::fflush(nullptr);
        _exit(sh.failed.load() ? 2 : 0);
      }
      pids.push_back(pid);
    }
    int last_done = 0;
    auto last_report = Clock::now();
    for (size_t running = pids.size(); running > 0;) {
      int status = 0;
      rusage ru{};
      const pid_t pid = wait4(-1, &status, WNOHANG, &ru);
      if (pid > 0) {
        --running;
        report.peak_rss_kb = std::max(report.peak_rss_kb, ru.ru_maxrss);
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !sh.failed.load()) {
          char what[128];
          std::snprintf(what, sizeof what, "a worker process died (%s %d)", WIFSIGNALED(status) ? "signal" : "exit",
                        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
          fail(sh, what);
        }
        if (sh.failed.load())
          for (pid_t p : pids)
            if (p != pid) kill(p, SIGTERM);
        continue;
      }
      if (pid < 0 && errno != EINTR) break;
      if (sh.done.load() != last_done || Clock::now() - last_report > std::chrono::seconds(30)) {
        last_done = sh.done.load();
        last_report = Clock::now();
        report_progress();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (sh.failed.load()) throw DataError(sh.error);
  report.done = sh.done.load();
  report.sum = sh.sum.load();
  report.weight = sh.weight.load();
  report.seconds = seconds();
  return report;
}

}  // namespace bert::data
