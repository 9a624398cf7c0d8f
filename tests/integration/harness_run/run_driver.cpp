// Test driver for the executor: builds a Plan from its command line (a local node with N ranks,
// or one launcher process standing for all ranks) and calls run_experiments() exactly as
// `harness run` does. Everything after `--` is the launch command (one rank's command for local).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "harness/run/run.h"

using namespace bert::harness;

int main(int argc, char** argv) {
  CLI::App app{"harness_run test driver"};
  std::string out, launcher = "local", cache_cmd, cache_policy = "best-effort", walltime, preflight = "off",
                   bind_cpus, resume, setup_cmd;
  int nexp = 2, ranks = 1, nodes = 1;
  std::string seed_list;
  double grace = 10;
  bool tty = false;
  std::vector<std::string> launch;
  app.add_option("--out", out)->required();
  for (auto [name, v] : {std::pair{"--nexp", &nexp}, {"--ranks", &ranks}, {"--nodes", &nodes}}) app.add_option(name, *v);
  for (auto [name, v] : {std::pair{"--launcher", &launcher}, {"--cache-policy", &cache_policy},
                         {"--walltime", &walltime}, {"--preflight", &preflight}, {"--resume", &resume}})
    app.add_option(name, *v);
  app.add_option("--seeds", seed_list, "comma-separated seeds (default 1000, 1001, ...)");
  app.add_option("--cache-clear", cache_cmd, "shell command run by sh -c");
  app.add_option("--bind-cpus", bind_cpus, "CPU list every rank is bound to (preflight checks it)");
  app.add_option("--grace", grace);
  app.add_option("--setup", setup_cmd, "shell command run once by sh -c");
  std::vector<std::string> data_paths;
  app.add_option("--data-path", data_paths, "KEY=PATH every node must read (Plan::data_paths), repeatable");
  app.add_flag("--tty", tty);
  app.add_option("launch", launch)->required();
  CLI11_PARSE(app, argc, argv);

  Plan plan;
  plan.system_file = "tests/integration/harness_run (driver)";
  plan.config_name = "TEST_1x" + std::to_string(ranks) + "x1x1";
  plan.system_name = "TESTSYS";
  plan.launcher = launcher;
  plan.num_nodes = nodes;
  plan.ranks_per_node = ranks;
  plan.world_size = nodes * ranks;
  for (int n = 0; n < nodes; ++n) {
    NodePlan node;
    node.hostname = nodes == 1 ? "localhost" : "node" + std::to_string(n);
    for (int r = 0; r < ranks; ++r) {
      RankPlan rp;
      rp.global_rank = n * ranks + r;
      rp.node_index = n;
      rp.local_rank = r;
      rp.binding.local_rank = r;
      rp.binding.cpus = bind_cpus;
      rp.env = {{"RANK", std::to_string(rp.global_rank)}, {"LOCAL_RANK", std::to_string(r)},
                {"WORLD_SIZE", std::to_string(plan.world_size)}};
      node.ranks.push_back(rp);
    }
    plan.nodes.push_back(node);
  }
  plan.experiment.nexp = nexp;
  plan.experiment.cache_clear = cache_policy == "required" ? CachePolicy::Required
                                : cache_policy == "off"    ? CachePolicy::Off
                                                           : CachePolicy::BestEffort;
  for (size_t pos = 0; pos < seed_list.size();) {
    size_t comma = seed_list.find(',', pos);
    if (comma == std::string::npos) comma = seed_list.size();
    plan.experiment.seeds.push_back(std::stoull(seed_list.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  for (int i = int(plan.experiment.seeds.size()); i < nexp; ++i) plan.experiment.seeds.push_back(1000 + uint64_t(i));
  plan.experiment.run_walltime = walltime;
  plan.experiment.output_dir = out;
  if (!cache_cmd.empty()) plan.cache_clear.argv = {"sh", "-c", cache_cmd};
  if (!setup_cmd.empty()) {
    Command setup;
    setup.argv = {"sh", "-c", setup_cmd};
    setup.creates = out + "/data";
    plan.setup.push_back(setup);
  }
  plan.launch.argv = launch;
  for (const std::string& kv : data_paths) plan.data_paths[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  plan.run_config_file = out + "/run.yaml";
  plan.rendezvous_dir = out + "/rendezvous";
  plan.target_accuracy = 0.72;
  plan.trainer_config = {{"stopping", {{"target_accuracy", plan.target_accuracy}}},
                         {"run", {{"seed", 0}, {"rendezvous_dir", plan.rendezvous_dir}}},
                         {"submission", {{"submission_division", "closed"}}}};
  plan.system_json = {{"submitter", "TEST"}, {"division", "closed"}, {"status", "Available on-premise"},
                      {"system_name", "TESTSYS"}, {"number_of_nodes", std::to_string(nodes)}};

  RunOptions ro;
  ro.resume_dir = resume;
  ro.progress_tty = tty;
  ro.term_grace_s = grace;
  ro.preflight = preflight == "fail" ? PreflightPolicy::Fail
                 : preflight == "warn" ? PreflightPolicy::Warn
                                       : PreflightPolicy::Off;
  return run_experiments(plan, ro);
}
