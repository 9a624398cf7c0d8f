// `harness package SET... --org ORG -o DIR [--impl NAME] [--implementation DIR] [--source CHECKOUT]`:
// the CLI of package.h. Prints what went where and our package check's report (the official checker's
// lines); exit 0 when the check passes, 1 when it finds errors, 2 on bad input (one line naming the file).
#pragma once
#include <CLI/CLI.hpp>

namespace bert::harness {

// Registers the subcommand; run_package_if_parsed returns -1 when it was not the one given.
void register_package_command(CLI::App& app);
int run_package_if_parsed();

}  // namespace bert::harness
