#include <doctest/doctest.h>

#include "harness/run/summary.h"

using namespace bert::harness;
using O = bert::results::Olympic;

namespace {

std::string row_of(const std::string& md, int index) {
  const std::string start = "\n| " + std::to_string(index) + " | ";
  const size_t at = md.find(start);
  REQUIRE(at != std::string::npos);
  return md.substr(at + 1, md.find('\n', at + 1) - at - 1);
}

bert::results::RunScore run(const std::string& file, O role, std::optional<double> minutes) {
  bert::results::RunScore r;
  r.file = file;
  r.compliant = true;
  r.valid = minutes.has_value();
  r.minutes = minutes;
  r.olympic = role;
  if (!r.valid) r.failure = "time to train is not a finite number (run_start time_ms 61000, run_stop time_ms nan)";
  return r;
}

}  // namespace

TEST_CASE("summary: each run says what the olympic mean did with it; an invalid time to train is not ok") {
  Plan plan;
  OutputTree tree{"/o", "SYS", "D", 3};
  SetState st;
  st.nexp = 3;
  for (int i = 1; i <= 3; ++i) {
    ExperimentRecord e;
    e.index = i;
    e.status = ExpStatus::Converged;
    e.compliant = true;
    st.experiments.push_back(e);
  }
  bert::results::ScoreResult s;
  s.runs = {run("result_0.txt", O::DroppedFastest, 5.0), run("result_1.txt", O::Failed, std::nullopt),
            run("result_2.txt", O::Counted, 6.0)};
  s.dropped = 1;
  s.olympic_minutes = 6.0;
  SummaryInput in{&plan, &tree, &st, s, "", {}, {}, {}, {}};
  const std::string md = render_summary(in);
  CHECK(md.find("| compliance | olympic mean |") != std::string::npos);
  CHECK(row_of(md, 1).find("| dropped (fastest) |") != std::string::npos);
  CHECK(row_of(md, 2).find("| dropped (failed): invalid, time to train is not a finite number (run_start time_ms "
                           "61000, run_stop time_ms nan) |") != std::string::npos);
  CHECK(row_of(md, 3).find("| counted |") != std::string::npos);
  CHECK(md.find("- failed runs (not compliant, or no valid time to train): 1") != std::string::npos);
}
