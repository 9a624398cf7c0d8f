// `harness check` and `harness score`. The harness main registers them on its CLI::App. When the
// command finishes, the process ends with the MLPerf checker's exit codes (0 pass, 1 fail, 2 usage
// error with one message on stderr) whatever the host does with CLI11 errors; on success the callback
// returns normally.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace bert::results {

struct ScoreResult;

// What a host program adds to `harness score` (the harness: --record, into its results database):
// options on the subcommand, and a step after a directory was scored and printed, whose non-zero
// return becomes the exit code.
struct ScoreExtension {
  std::function<void(CLI::App& score_cmd)> add_options;
  std::function<int(const std::string& dir, const ScoreResult& r)> after_score;
};

// harness check <log | results dir | --package ORG_DIR> [--ruleset 5.0.0] [--json] [--werror] [--quiet]
void register_check_command(CLI::App& app);
// harness score <results dir> [--ruleset 5.0.0] [--json] [--no-rcp] [--rcp-full] [--bert-train-samples]
void register_score_command(CLI::App& app, const ScoreExtension& ext = {});

// Flushes stdout/stderr and, for a non-zero code, exits the process with it.
void end_command(int rc);

}  // namespace bert::results
