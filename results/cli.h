// `harness check` and `harness score`. The harness main registers them on its CLI::App. When the
// command finishes, the process ends with the MLPerf checker's exit codes (0 pass, 1 fail, 2 usage
// error with one message on stderr) whatever the host does with CLI11 errors; on success the callback
// returns normally.
#pragma once
#include <CLI/CLI.hpp>

namespace bert::results {

// harness check <log | results dir | --package ORG_DIR> [--ruleset 5.0.0] [--json] [--werror] [--quiet]
void register_check_command(CLI::App& app);
// harness score <results dir> [--ruleset 5.0.0] [--json] [--no-rcp] [--rcp-full] [--bert-train-samples]
void register_score_command(CLI::App& app);

// Flushes stdout/stderr and, for a non-zero code, exits the process with it.
void end_command(int rc);

}  // namespace bert::results
