#include "trainer/data/text/create_parts.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "trainer/data/data_error.h"
#include "trainer/data/shard_io.h"

namespace bert::data::text {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kBlockRows = 4096;

// Counters the worker processes share with the parent (an anonymous shared mapping).
struct Shared {
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<int64_t> instances{0};
  std::atomic<int> failed{0};
  char error[2048]{};
};

uint64_t file_size(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

void remove_tmp(const std::vector<CreateJob>& jobs) {
  for (const auto& j : jobs) {
    std::error_code ec;
    fs::remove(j.output + ".tmp", ec);
  }
}

// Takes parts from the shared counter until none are left; the first error is recorded.
void work(const std::vector<CreateJob>& jobs, const std::vector<int>& todo, const Vocab& vocab,
          const GeneratorOptions& opt, Shared& sh) {
  while (!sh.failed.load()) {
    const int k = sh.next.fetch_add(1);
    if (k >= static_cast<int>(todo.size())) return;
    const CreateJob& job = jobs[static_cast<size_t>(todo[static_cast<size_t>(k)])];
    try {
      sh.instances += create_part(job, vocab, opt);
      sh.bytes += file_size(job.input);
      ++sh.done;
    } catch (const std::exception& e) {
      if (sh.failed.exchange(1) == 0) std::snprintf(sh.error, sizeof sh.error, "%s", e.what());
      return;
    }
  }
}

}  // namespace

int64_t create_part(const CreateJob& job, const Vocab& vocab, const GeneratorOptions& opt) {
  opt.validate();
  const Documents docs = read_documents(job.input, vocab, opt.lower_case);
  const Instances inst = generate_instances(docs, vocab, opt);
  const int64_t n = static_cast<int64_t>(inst.rows.size());
  FixedShardWriter out(job.output, n, Limits{vocab.num_ids(), opt.max_seq_length, opt.max_predictions_per_seq});
  for (int64_t first = 0; first < n; first += kBlockRows) {
    SequenceSet block;
    expand_rows(docs, inst, vocab, first, std::min(kBlockRows, n - first), block);
    out.write(block);
  }
  out.finish();
  return n;
}

CreateReport create_parts(const std::vector<CreateJob>& jobs, const Vocab& vocab, const GeneratorOptions& opt,
                          int workers, bool resume, const std::function<void(const CreateProgress&)>& progress) {
  opt.validate();
  CreateReport report;
  std::vector<int> todo;
  CreateProgress prog;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!fs::is_regular_file(jobs[i].input)) throw DataError(fmt::format("{}: no such text part", jobs[i].input));
    if (fs::exists(jobs[i].output)) {
      if (!resume)
        throw DataError(fmt::format("{}: already exists (remove it, or resume to keep finished parts)", jobs[i].output));
      ++report.skipped;
      continue;
    }
    todo.push_back(static_cast<int>(i));
    prog.bytes_total += file_size(jobs[i].input);
  }
  prog.parts_total = static_cast<int>(todo.size());
  const auto t0 = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw DataError("create: cannot map shared memory");
  Shared& sh = *new (mem) Shared();
  struct Unmap {
    void* p;
    ~Unmap() { munmap(p, sizeof(Shared)); }
  } unmap{mem};

  workers = std::max(1, std::min(workers, static_cast<int>(todo.size())));
  std::vector<pid_t> pids;
  if (workers == 1 || todo.empty()) {
    work(jobs, todo, vocab, opt, sh);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    report.peak_rss_kb = ru.ru_maxrss;
  } else {
    std::fflush(nullptr);
    for (int w = 0; w < workers; ++w) {
      const pid_t pid = fork();
      if (pid < 0) {
        sh.failed = 1;
        std::snprintf(sh.error, sizeof sh.error, "create: cannot start worker process: %s", std::strerror(errno));
        break;
      }
      if (pid == 0) {
        work(jobs, todo, vocab, opt, sh);
        _exit(sh.failed.load() ? 2 : 0);
      }
      pids.push_back(pid);
    }
    int last_done = -1;
    auto last_report = Clock::now();
    size_t running = pids.size();
    while (running > 0) {
      int status = 0;
      rusage ru{};
      const pid_t pid = wait4(-1, &status, WNOHANG, &ru);
      if (pid > 0) {
        --running;
        report.peak_rss_kb = std::max(report.peak_rss_kb, ru.ru_maxrss);
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && sh.failed.exchange(1) == 0)
          std::snprintf(sh.error, sizeof sh.error, "create: a worker process died (%s %d)",
                        WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        if (sh.failed.load())
          for (pid_t p : pids)
            if (p != pid) kill(p, SIGTERM);
        continue;
      }
      if (pid < 0 && errno != EINTR) break;
      const int d = sh.done.load();
      if (progress && (d != last_done || Clock::now() - last_report > std::chrono::seconds(30))) {
        prog.parts_done = d;
        prog.bytes_done = sh.bytes.load();
        prog.seconds = seconds();
        progress(prog);
        last_done = d;
        last_report = Clock::now();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (sh.failed.load()) {
    remove_tmp(jobs);
    throw DataError(sh.error);
  }
  report.parts = sh.done.load();
  report.instances = sh.instances.load();
  report.bytes = sh.bytes.load();
  report.seconds = seconds();
  if (progress && workers == 1) {
    prog.parts_done = report.parts;
    prog.bytes_done = report.bytes;
    prog.seconds = report.seconds;
    progress(prog);
  }
  return report;
}

}  // namespace bert::data::text
