// `harness import CONFIG.sh [-o OUT.yaml]`: the CLI of config_import.h. Prints the mapped / passed
// through / ignored table, writes the YAML and plans it once (the same as `harness run OUT --dry-run`)
// so an import that would not run fails here. Exit 2 with file:line and bash's message on a bad config.
#pragma once
#include <CLI/CLI.hpp>

namespace bert::harness {

// Registers the subcommand; run_import_if_parsed returns -1 when it was not the one given.
void register_import_command(CLI::App& app);
int run_import_if_parsed();

}  // namespace bert::harness
