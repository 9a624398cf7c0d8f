// A stand-alone `check` / `score` front end over the results library, for tests and benchmarks
// (the product command is `harness check|score`, which registers the same subcommands).
#include <CLI/CLI.hpp>

#include "common/cli_parse.h"
#include "results/cli.h"

int main(int argc, char** argv) {
  CLI::App app{"results-cli: MLPerf BERT check and score"};
  app.require_subcommand(1);
  bert::results::register_check_command(app);
  bert::results::register_score_command(app);
  // a finished check/score exits with its own code (results/cli.h)
  return bert::parse_command_line(app, argc, argv).value_or(0);
}
