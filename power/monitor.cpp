#include "power/monitor.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "power/power_log.h"

namespace bert::power {
namespace {

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

timespec add_seconds(timespec t, double s) {
  const double whole = std::floor(s);
  t.tv_sec += static_cast<time_t>(whole);
  t.tv_nsec += static_cast<long>((s - whole) * 1e9);
  if (t.tv_nsec >= 1000000000L) t.tv_sec += 1, t.tv_nsec -= 1000000000L;
  return t;
}

}  // namespace

MonitorStats run_monitor(const MonitorConfig& cfg, Reader& reader, const std::string& host, std::FILE* out,
                         const std::string& stop_file) {
  struct sigaction sa{};
  sa.sa_handler = on_stop;  // no SA_RESTART: the sleep ends at once
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &sa, nullptr);
  MonitorStats st;
  PowerLog log(out);
  if (!log.start(now_ms(), enum_name(cfg.measurement_type, kMeasurementTypeNames), cfg.conversion_eff)) {
    std::fprintf(stderr, "power-monitor %s: cannot write the power log\n", host.c_str());
    return st;
  }
  timespec next{};
  ::clock_gettime(CLOCK_MONOTONIC, &next);
  long failed_in_a_row = 0;
  auto stop_asked = [&] { return g_stop || (!stop_file.empty() && ::access(stop_file.c_str(), F_OK) == 0); };
  while (!stop_asked()) {
    const Reading r = reader.read();
    const int64_t t = now_ms();
    if (r.watts) {
      if (failed_in_a_row > 0)
        std::fprintf(stderr, "power-monitor %s: readings again after %ld failed\n", host.c_str(), failed_in_a_row);
      failed_in_a_row = 0;
      ++st.readings;
      if (!log.reading(t, *r.watts, host)) {
        std::fprintf(stderr, "power-monitor %s: ERROR: cannot write the power log; stopping\n", host.c_str());
        return st;
      }
    } else {
      ++st.failures;
      // Every failure of a streak's start, then every 10th: loud, not a flood.
      if (failed_in_a_row++ % 10 == 0)
        std::fprintf(stderr, "power-monitor %s: ERROR: no reading (%ld in a row): %s\n", host.c_str(), failed_in_a_row,
                     r.error.c_str());
    }
    std::fflush(stderr);
    next = add_seconds(next, cfg.interval_s);
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;  // a slow read: no burst
    while (!g_stop && ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) == EINTR) {
    }
  }
  log.stop(now_ms());
  return st;
}

}  // namespace bert::power
