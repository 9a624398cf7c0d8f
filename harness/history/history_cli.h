// The harness CLI of the results database: `harness history`, `harness compare`, `harness score
// --record`, and `harness run`'s --db and --fail-on-reference (harness/main.cpp wires them).
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "harness/history/set_end.h"
#include "results/cli.h"

namespace bert::harness::history {

// harness run --db PATH --fail-on-reference
struct RunRecordArgs {
  std::string db;
  bool fail_on_reference = false;
};
void add_run_options(CLI::App& run, RunRecordArgs& a);
// The exit code of `harness run`: 3 when the set completed (0) but --fail-on-reference and a reference
// was missed or not measured; otherwise the executor's.
int run_exit_code(int rc, const RunRecordArgs& a, const SetEndOutcome& o);

// Registers history and compare; run_history_if_parsed returns -1 when neither was given.
void register_history_commands(CLI::App& app);
int run_history_if_parsed(const std::map<std::string, std::string>& env);

// harness score --record [--db PATH]: the scored folder into the results database.
results::ScoreExtension score_record_extension(const std::map<std::string, std::string>& env);

}  // namespace bert::harness::history
