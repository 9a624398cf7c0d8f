// `harness check` and `harness score`. The harness main registers them on its CLI::App and, as for
// every subcommand, turns CLI11 errors into exit codes:
//   try { app.parse(argc, argv); } catch (const CLI::ParseError& e) { return app.exit(e); }
// Our callbacks end a failed check with CLI::RuntimeError(1) (app.exit returns 1, prints nothing)
// and a usage error with CLI::RuntimeError(2) after printing one message to stderr.
#pragma once
#include <CLI/CLI.hpp>

namespace bert::results {

// harness check <log | results dir | --package ORG_DIR> [--ruleset 5.0.0] [--json] [--werror] [--quiet]
void register_check_command(CLI::App& app);
// harness score <results dir> [--ruleset 5.0.0] [--json] [--no-rcp] [--rcp-full] [--bert-train-samples]
void register_score_command(CLI::App& app);

}  // namespace bert::results
