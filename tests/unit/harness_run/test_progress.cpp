#include <doctest/doctest.h>

#include <cstdio>

#include "harness/run/progress.h"

using namespace bert::harness;

namespace {
std::string line(const char* key, long long t, const char* value, const char* meta) {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, \"event_type\": \"POINT_IN_TIME\", \"key\": \"%s\", "
                "\"value\": %s, \"metadata\": {%s}}",
                t, key, value, meta);
  return buf;
}

// What a display (on a terminal or not, for nexp experiments) prints for eval accuracy 0.5 at 150000 samples
// in experiment `experiment`, after `run_start` when asked, then the line `last`.
std::string displayed(bool tty, int experiment, int nexp, bool run_start, const char* last) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  ProgressDisplay d(f, tty, nexp, 0.72);
  d.start_experiment(experiment, 0);
  if (run_start) d.on_line(line("run_start", 0, "null", ""));
  d.on_line(line("eval_accuracy", 1000, "0.5", "\"epoch_num\": 150000"));
  d.print(last);
  std::fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}
}  // namespace

TEST_CASE("progress follows run_start, evals and run_stop") {
  RunProgress p;
  CHECK_FALSE(update_progress(p, "rank 0: 150000 samples"));
  CHECK(update_progress(p, line("run_start", 1000, "null", "\"file\": \"x\"")));
  CHECK(update_progress(p, line("eval_accuracy", 11000, "0.5", "\"epoch_num\": 100000")));
  CHECK(update_progress(p, line("eval_accuracy", 21000, "0.6", "\"epoch_num\": 200000")));
  CHECK(p.run_start_ms == 1000);
  CHECK(p.samples == 200000);
  CHECK(p.accuracy == doctest::Approx(0.6));
  REQUIRE(p.evals.size() == 2);
  // 0.1 per 100k samples, 10k samples/s: 0.72 is 120k samples = 12 s away.
  CHECK(estimate_run_remaining_s(p, 0.72) == doctest::Approx(12.0));
  CHECK(update_progress(p, line("run_stop", 30000, "null", "\"status\": \"success\"")));
  CHECK(p.run_stop_status == "success");
}

TEST_CASE("no estimate without two evals or with a falling accuracy") {
  RunProgress p;
  update_progress(p, line("run_start", 0, "null", ""));
  update_progress(p, line("eval_accuracy", 1000, "0.5", "\"epoch_num\": 10"));
  CHECK(estimate_run_remaining_s(p, 0.72) < 0);
  update_progress(p, line("eval_accuracy", 2000, "0.4", "\"epoch_num\": 20"));
  CHECK(estimate_run_remaining_s(p, 0.72) < 0);
  CHECK_FALSE(update_progress(p, ":::MLLOG {not json"));
}

TEST_CASE("durations") {
  CHECK(format_duration(-1) == "?");
  CHECK(format_duration(42) == "42 s");
  CHECK(format_duration(185) == "3 min 05 s");
  CHECK(format_duration(3720) == "1 h 02 min");
}

TEST_CASE("plain progress prints one line per eval, no terminal control") {
  CHECK(displayed(false, 2, 3, true, "done") == "experiment 2/3: 150000 samples, eval accuracy 0.5000\ndone\n");
}

TEST_CASE("terminal progress redraws one line in place") {
  const std::string out = displayed(true, 1, 2, false, "status");
  CHECK(out.find("\r\033[Kexperiment 1/2  150000 samples  accuracy 0.5000") != std::string::npos);
  CHECK(out.find("\r\033[Kstatus\n") != std::string::npos);
}
