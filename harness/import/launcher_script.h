// The topology a Samsung-style launcher script hard-codes (`hosts=(192.168.16.1 ...)`, `NGPU=8`, from
// training_results_v1.1 Samsung run_multinode.sh): only those assignment lines are evaluated, by bash.
#pragma once
#include <string>
#include <vector>

namespace bert::harness {

struct LauncherScriptTopology {
  std::vector<std::string> hosts;
  std::string gpus_per_node;  // "" = not set there
};

// Throws UserError naming the script when bash fails on those lines.
LauncherScriptTopology read_launcher_script(const std::string& path, double timeout_s);

}  // namespace bert::harness
