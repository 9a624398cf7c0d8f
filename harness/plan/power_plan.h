// The power: keys of a system (schema rows power.*) into Plan::power: the monitors' config and command,
// the trainer's power window, the interconnect estimate, the GPU clock lock; what MLPerf's power rules
// refuse for a closed-division result is refused here, before anything is queued.
#pragma once
#include <string>

#include "harness/config/config.h"
#include "harness/launch/launcher.h"
#include "harness/plan/plan.h"

namespace bert::harness {

// After add_commands (it needs Plan::per_node). `hosts_known`: the node names are the real ones (not a
// dry-run's placeholders), so power.bmc must name each of them. `gpus`: GPUs per node.
void add_power(Plan& plan, const Config& cfg, const Launcher& launcher, const std::string& bin_dir, bool hosts_known, int gpus);

// The dry-run's lines: what is measured, how often, the window, the clock lock ("" without power:);
// and its commands.
std::string power_dry_run_lines(const Plan& plan);
std::string power_command_lines(const Plan& plan);

}  // namespace bert::harness
