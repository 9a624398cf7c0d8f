// What `harness run` does when a set ends (RunOptions::at_end), beyond the executor's own work: the
// references' verdicts (console, summary.md), report.html in the set's folder, and the set's record in
// the results database. A database that cannot be written (read-only, corrupt, disk full, a newer
// schema) is one warning line: the set's folder is complete without it.
#pragma once
#include <map>
#include <string>

#include "harness/run/run.h"

namespace bert::harness::history {

struct SetEndOptions {
  std::string db_flag;                        // --db ("" = BERT_RESULTS_DB or the XDG default)
  std::map<std::string, std::string> env;     // the process environment
};

struct SetEndOutcome {
  bool reference_missed = false;              // a reference missed or not measured
};

SetEndHook make_set_end_hook(SetEndOptions opts, SetEndOutcome* outcome);

}  // namespace bert::harness::history
