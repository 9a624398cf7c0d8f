// `harness probe SYSTEM.yaml [--set k=v]... [--seconds S] [--warmup N] [--points N] [--steps-per-point N]
// [--margin F]`: the CLI of probe.h. Prints the measurement, the projection and the --set lines; exit 0
// when a throughput was measured, 1 when the run gave none (the reason on stderr), 2 on bad input.
#pragma once
#include <CLI/CLI.hpp>

#include "harness/plan/plan.h"

namespace bert::harness {

void register_probe_command(CLI::App& app);
// -1 when `probe` was not the subcommand given.
int run_probe_if_parsed(const SourceInfo& source);

}  // namespace bert::harness
