// power: keys into Plan::power: the monitors' command through each launcher, what MLPerf refuses in the
// closed division, the BMC of every node, the trainer's power window, plan.json.
#include <doctest/doctest.h>

#include <string>

#include "harness/config/schema.h"
#include "plan_helpers.h"
#include "power/monitor_config.h"
#include "test_helpers.h"

using bert::harness::Plan;

namespace {

const char* kSrun = R"(system: {name: S, submitter: Org}
launcher: {type: srun}
topology: {synthetic: "pack:1 numa:1 core:2 pu:1", compare: false}
nodes: {count: 2, gpus_per_node: 0}
binding: {unit: numa}
benchmark: {data: {train_dir: /d, eval_dir: /e}}
experiment: {nexp: 10, division: open, cache_clear: off}
)";

std::string swap(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

std::map<std::string, std::string> job() { return {{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_JOB_ID", "7"}}; }

}  // namespace

TEST_CASE("power.source offers off and the monitor's sources") {
  std::vector<std::string> words{"off"};
  for (const auto& e : bert::power::kSourceNames) words.push_back(e.name);
  CHECK(bert::harness::schema_find("power.source")->choices == words);
}

TEST_CASE("srun: one monitor a node beside the step, its node index from Slurm, every node's BMC") {
  Plan p = plan_from(kSrun, "s.yaml",
                     {"power.source=ipmi", "power.interval=0.5", "power.conversion_eff=0.94",
                      "power.bmc={n1: '10.0.0.1', n2: '10.0.0.2:623'}"},
                     job());
  CHECK(p.power.source == "ipmi");
  CHECK(p.power.monitor.shell() ==
        "srun --overlap --nodes=2 --ntasks=2 --ntasks-per-node=1 /b/power-monitor --config output/power_monitor.json "
        "--node-index-env SLURM_NODEID");
  CHECK(p.power.monitor_config["bmcs"] == bert::power::json::array({"10.0.0.1", "10.0.0.2:623"}));
  CHECK(p.power.monitor_config["hosts"] == bert::power::json::array({"n1", "n2"}));
  CHECK(p.power.window_s == doctest::Approx(31));  // (60 + 2) readings x 0.5 s
  CHECK(p.trainer_config["run"]["power_window_s"] == doctest::Approx(31));
  const Plan back = Plan::from_json(p.to_json());
  CHECK(back.power.monitor.argv == p.power.monitor.argv);
  CHECK(back.power.conversion_eff == 0.94);
  // a node of the job without a BMC
  CHECK_THROWS_WITH(plan_from(kSrun, "s.yaml", {"power.source=ipmi", "power.bmc={n1: '10.0.0.1'}"}, job()),
                    doctest::Contains("no BMC address for node n2"));
}

TEST_CASE("no power: no monitor, no window; a plan.json without power reads back") {
  Plan p = plan_from(kSrun, "s.yaml", {}, job());
  CHECK(p.power.source.empty());
  CHECK(p.power.monitor.argv.empty());
  CHECK(p.trainer_config["run"]["power_window_s"] == 0.0);
  bert::harness::json j = p.to_json();
  j.erase("power");
  CHECK(Plan::from_json(j).power.source.empty());
}

TEST_CASE("the closed division refuses what is no MLPerf power result") {
  const std::vector<std::string> closed{"experiment.division=closed", "benchmark.data.checkpoint=/c/model.ckpt-28252.h5",
                                        "power.source=command", "power.command=echo 1"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), closed.begin(), closed.end());
    return more;
  };
  CHECK_THROWS_WITH(plan_from(kSrun, "s.yaml", with({"power.interval=2", "power.conversion_eff=0.9"}), job()),
                    doctest::Contains("at least one reading a second"));
  CHECK_THROWS_WITH(plan_from(kSrun, "s.yaml", with({}), job()), doctest::Contains("documented AC/DC conversion efficiency"));
  CHECK_THROWS_WITH(plan_from(kSrun, "s.yaml", with({"power.source=nvml", "power.conversion_eff=0.9"}), job()),
                    doctest::Contains("nvml sums the GPUs only"));
  CHECK_THROWS_WITH(plan_from(kSrun, "s.yaml", with({"power.measurement_type=DC", "power.conversion_eff=0.9"}), job()),
                    doctest::Contains("efficiency is 1"));
  // the open division takes them, marked
  Plan open = plan_from(kSrun, "s.yaml", {"power.source=nvml"}, job());
  CHECK_FALSE(open.power.node_level);
  CHECK_FALSE(open.power.conversion_eff_given);
}

TEST_CASE("mpirun forwards the BMC credentials by name; local runs the monitor here") {
  const std::string mpirun = swap(kSrun, "type: srun", "type: mpirun, mpirun: {hosts: [a, b]}");
  Plan p = plan_from(mpirun, "m.yaml", {"power.source=redfish", "power.bmc={a: bmc-a, b: bmc-b}"});
  const std::string m = p.power.monitor.shell();
  CHECK(m.find("mpirun -np 2 --map-by ppr:1:node") == 0);
  CHECK(m.find("-x BMC_USERNAME -x BMC_PASSWORD /b/power-monitor") != std::string::npos);
  CHECK(m.ends_with("--node-index-env OMPI_COMM_WORLD_RANK"));
  const std::string local = swap(swap(kSrun, "type: srun", "type: local"), "count: 2", "count: 1");
  Plan l = plan_from(local, "l.yaml", {"power.source=command", "power.command=echo 5", "power.gpu_clock_mhz=0"});
  CHECK(l.power.monitor.shell() == "/b/power-monitor --config output/power_monitor.json");
  CHECK_THROWS_WITH(plan_from(local, "l.yaml", {"power.gpu_clock_mhz=1305"}), doctest::Contains("no GPU"));
}
