#include "harness/run/power_monitors.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "process/capture.h"
#include "power/power_log.h"
#include "results/log_parser.h"
#include "results/power.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The monitors' output (the launcher's and every node's power-monitor lines) into their log file, so a
// full pipe never stops a monitor.
void drain(int out_fd, int err_fd, int log_fd) {
  pollfd p[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  char buf[4096];
  int open = 2;
  while (open > 0) {
    if (::poll(p, 2, 1000) < 0 && errno != EINTR) break;
    for (pollfd& f : p) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(f.fd, buf, sizeof buf);
      if (n > 0) {
        if (log_fd >= 0) (void)!::write(log_fd, buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(f.fd);
        f.fd = -1;
        --open;
      }
    }
  }
}

bool is_key(const results::LogRecord& r, const char* key) { return r.key_str() && *r.key_str() == key; }

// The first run_start and run_stop of a result file (either may be missing).
std::pair<std::optional<double>, std::optional<double>> timed_run(const std::string& result_file) {
  std::optional<double> a, b;
  std::ifstream in(result_file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  for (const results::LogRecord& r : results::parse_log(ss.str()).records) {
    if (!a && is_key(r, "run_start")) a = r.timestamp;
    if (!b && is_key(r, "run_stop")) b = r.timestamp;
  }
  return {a, b};
}

struct RawLog {
  bool exists = false;
  bool stopped = false;                                   // it has its stop line
  std::vector<std::pair<double, std::string>> readings;  // (time_ms, the line as the monitor wrote it)
};

RawLog read_raw(const std::string& path) {
  RawLog raw;
  std::ifstream in(path, std::ios::binary);
  if (!in) return raw;
  raw.exists = true;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> lines;
  results::for_each_line(text, [&](std::string_view l) { lines.emplace_back(l); });
  const results::ParsedLog log = results::parse_log(text);
  for (const results::LogRecord& r : log.records) {
    if (is_key(r, results::power_key::kStop)) raw.stopped = true;
    if (is_key(r, results::power_key::kReading) && r.file_line >= 1 && r.file_line <= lines.size())
      raw.readings.emplace_back(r.timestamp, lines[r.file_line - 1]);
  }
  return raw;
}

}  // namespace

PowerMonitors::~PowerMonitors() {
  if (running_) stop_running([](const std::string&) {});
}

std::string PowerMonitors::before_set(const Say& say) {
  const PowerPlan& p = plan_.power;
  if (enabled()) {
    try {
      write_file_atomic(p.monitor_config_file, p.monitor_config.dump(2) + "\n");
    } catch (const std::exception& e) {
      return std::string("power: ") + e.what();
    }
  }
  if (p.clock_lock.argv.empty()) return "";
  say("power: locking the GPU clocks: " + p.clock_lock.shell());
  log_("clock lock", p.clock_lock);
  const Captured c = run_capture({p.clock_lock.argv, p.clock_lock.env}, 120);
  if (!c.ok()) return "power.gpu_clock_mhz: `" + p.clock_lock.shell() + "` failed (" + c.describe() + "): " + c.output;
  return "";
}

void PowerMonitors::after_set(const Say& say) {
  const PowerPlan& p = plan_.power;
  if (p.clock_reset.argv.empty()) return;
  log_("clock reset", p.clock_reset);
  const Captured c = run_capture({p.clock_reset.argv, p.clock_reset.env}, 120);
  say(c.ok() ? "power: GPU clocks reset" : "power: ERROR: the GPU clocks were not reset (`" + p.clock_reset.shell() + "`: " + c.describe() + ")");
}

void PowerMonitors::start(int i, const Say& say) {
  if (!enabled()) return;
  const std::string dir = raw_dir(i);
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  ChildSpec spec{plan_.power.monitor.argv, plan_.power.monitor.env};
  spec.argv.insert(spec.argv.end(), {"--out-dir", dir, "--stop-file", dir + "/stop"});
  log_("power", Command{spec.argv, plan_.power.monitor.env, "", ""});
  log_fd_ = ::open(monitor_log(i).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  try {
    child_ = spawn_child(spec);
  } catch (const std::exception& e) {
    say(std::string("power: ERROR: the monitors did not start: ") + e.what() + "; this run has no energy, training goes on");
    if (log_fd_ >= 0) ::close(log_fd_), log_fd_ = -1;
    return;
  }
  running_ = true;
  drain_ = std::thread(drain, child_.out_fd, child_.err_fd, log_fd_);
  // The window must open before the run does: wait for every node's first line.
  const auto t0 = Clock::now();
  for (;;) {
    size_t begun = 0;
    for (size_t k = 0; k < plan_.nodes.size(); ++k)
      begun += fs::file_size(dir + "/node_" + std::to_string(k) + ".txt", ec) > 0 && !ec ? 1 : 0;
    if (begun == plan_.nodes.size()) return;
    if (reap_child(child_) || seconds_since(t0) > 10) {
      say("power: ERROR: " + std::to_string(begun) + " of " + std::to_string(plan_.nodes.size()) +
          " node monitor(s) began their log (see " + monitor_log(i) + "); training goes on");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void PowerMonitors::stop_running(const Say& say) {
  // The stop file first (every launcher's tasks see it), then SIGTERM, then SIGKILL.
  const double grace = 2 * plan_.power.interval_s + 5;
  const auto t0 = Clock::now();
  while (!reap_child(child_) && seconds_since(t0) < grace) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!child_.exited) {
    say("power: the monitors did not stop at their stop file; SIGTERM");
    signal_group(child_, SIGTERM);
    const auto t1 = Clock::now();
    while (!reap_child(child_) && seconds_since(t1) < 5) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!child_.exited) {
      signal_group(child_, SIGKILL);
      while (!reap_child(child_)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (drain_.joinable()) drain_.join();
  if (log_fd_ >= 0) ::close(log_fd_), log_fd_ = -1;
  running_ = false;
}

std::vector<std::string> PowerMonitors::finish(int i, const Say& say) {
  std::vector<std::string> problems;
  if (!enabled()) return problems;
  const std::string dir = raw_dir(i);
  auto problem = [&](const std::string& p) {
    problems.push_back(p);
    say("power: ERROR: experiment " + tree_.index(i) + ": " + p);
  };
  if (running_) {
    // One more reading on every node after the run's end (each reading stands for the interval before it).
    std::this_thread::sleep_for(std::chrono::duration<double>(1.5 * plan_.power.interval_s));
    std::ofstream(dir + "/stop").put('\n');
    stop_running(say);
    if (!WIFEXITED(child_.wait_status) || WEXITSTATUS(child_.wait_status) != 0)
      problem("the monitors ended with " + describe_wait_status(child_.wait_status) + " (" + monitor_log(i) + ")");
  }
  {  // every failing reading and dead monitor the nodes reported
    std::ifstream log(monitor_log(i));
    for (std::string line; std::getline(log, line);)
      if (line.find("ERROR") != std::string::npos) problem(line);
  }
  const PowerPlan& p = plan_.power;
  const std::string out = official_dir(i);
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out, ec);
  const auto [run_start, run_stop] = timed_run(tree_.result(i));
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < plan_.nodes.size(); ++k) {
    const std::string host = plan_.nodes[k].hostname;
    const RawLog raw = read_raw(dir + "/node_" + std::to_string(k) + ".txt");
    if (!raw.exists) {
      problem("node " + std::to_string(k) + " (" + host + "): no power log (its monitor did not start)");
      continue;
    }
    if (!raw.stopped) problem("node " + std::to_string(k) + " (" + host + "): its monitor died before the run ended (no stop line)");
    // The window: from run_start over the timed run, at least the short-run window, up to the first
    // reading at or after its end (each reading stands for the interval before it). Without run_start,
    // the monitor's own window.
    const double from = run_start ? *run_start : raw.readings.empty() ? 0 : raw.readings.front().first - 1;
    const double until = !run_start ? inf : std::max(run_stop.value_or(inf), *run_start + p.window_s * 1000);
    std::string text;
    double last = from;
    int n = 0;
    for (const auto& [t, line] : raw.readings) {
      if (t <= from) continue;
      text += line + "\n";
      last = t;
      ++n;
      if (t >= until) break;
    }
    const auto t0 = static_cast<int64_t>(from);
    const std::string head = power::mllog_line(t0, "INTERVAL_START", results::power_key::kStart, "null", "") + "\n" +
                             power::mllog_line(t0, "POINT_IN_TIME", results::power_key::kConversionEff, power::py_float(p.conversion_eff),
                                               "\"measurement_type\": " + power::json_string(enum_name(p.measurement_type, power::kMeasurementTypeNames))) + "\n";
    const std::string tail = power::mllog_line(static_cast<int64_t>(last), "INTERVAL_END", results::power_key::kStop, "null", "") + "\n";
    try {
      write_file_atomic(out + "/node_" + std::to_string(k) + ".txt", head + text + tail);
    } catch (const std::exception& e) {
      problem(e.what());
    }
    if (n < p.min_readings)
      problem("node " + std::to_string(k) + " (" + host + "): " + std::to_string(n) + " readings in the run's window; MLPerf asks for " +
              std::to_string(p.min_readings));
  }
  for (int s = 0; s < p.switches; ++s) {
    const auto t0 = static_cast<int64_t>(run_start.value_or(0));
    const std::string text =
        power::mllog_line(t0, "POINT_IN_TIME", results::power_key::kConversionEff, power::py_float(p.conversion_eff),
                          "\"measurement_type\": " + power::json_string(enum_name(p.measurement_type, power::kMeasurementTypeNames))) + "\n" +
        power::mllog_line(t0, "POINT_IN_TIME", results::power_key::kInterconnect, power::py_float(p.switch_watts),
                          "\"switch_id\": " + power::json_string("sw_" + std::to_string(s))) + "\n";
    try {
      write_file_atomic(out + "/sw_" + std::to_string(s) + ".txt", text);
    } catch (const std::exception& e) {
      problem(e.what());
    }
  }
  return problems;
}

}  // namespace bert::harness
