#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/run/failure_report.h"
#include "harness/run/preflight.h"

using namespace bert::harness;

namespace {
const char* kProbe =
    "probe_pid 500\n"
    "online 0-7\n"
    "gpu_proc 4242, python, 30000 MiB\n"
    "container pyxis_old_job\n"
    "mem_total_kb 1000000\n"
    "mem_avail_kb 900000\n"
    "status /proc/100/status:Name:\tweka\n"
    "status /proc/100/status:PPid:\t1\n"
    "status /proc/100/status:Cpus_allowed_list:\t2-3\n"
    "status /proc/101/status:Name:\tfree\n"
    "status /proc/101/status:PPid:\t1\n"
    "status /proc/101/status:Cpus_allowed_list:\t0-7\n"
    "status /proc/15/status:Name:\tksoftirqd/2\n"
    "status /proc/15/status:PPid:\t2\n"
    "status /proc/15/status:Cpus_allowed_list:\t2\n"
    "status /proc/501/status:Name:\tgrep\n"
    "status /proc/501/status:PPid:\t500\n"
    "status /proc/501/status:Cpus_allowed_list:\t2\n";
NodePlan node(std::string host) {
  NodePlan n;
  n.hostname = std::move(host);
  return n;
}
}  // namespace

TEST_CASE("probe output: GPU processes, leftover containers, pinned processes on our CPUs") {
  auto f = parse_probe_output("n1", kProbe, "0-3");
  REQUIRE(f.size() == 3);
  CHECK(f[0].what == "process already on a GPU: 4242, python, 30000 MiB");
  CHECK(f[1].what == "leftover enroot/pyxis container: pyxis_old_job");
  CHECK(f[2].what == "process 100 (weka) is pinned to CPUs 2-3, which our ranks are bound to (2-3)");
  CHECK(f[2].node == "n1");
}

TEST_CASE("pinned processes elsewhere, kernel threads, the probe itself and unbound ranks are not findings") {
  CHECK(parse_probe_output("n1", kProbe, "4-7").size() == 2);
  CHECK(parse_probe_output("n1", kProbe, "").size() == 2);
}

TEST_CASE("low free memory is reported") {
  auto f = parse_probe_output("n1", "mem_total_kb 1000000\nmem_avail_kb 100000\n", "");
  REQUIRE(f.size() == 1);
  CHECK(f[0].what == "only 97 MiB of 976 MiB memory available");
}

TEST_CASE("the probe runs through the plan's per-node prefix with the launcher's tags; output split per node") {
  Plan p;
  p.launcher = "srun";
  p.nodes = {node("a"), node("b")};
  p.env = {{"NCCL_DEBUG", "WARN"}};
  p.per_node.argv = {"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--exclusive"};
  p.per_node.env = p.env;
  auto cmd = preflight_command(p);
  REQUIRE(cmd.argv.size() == 9);
  CHECK(std::vector<std::string>(cmd.argv.begin(), cmd.argv.begin() + 8) ==
        std::vector<std::string>{"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--exclusive", "-l", "sh", "-c"});
  CHECK(cmd.argv[8] == preflight_probe_script());
  CHECK(cmd.env.at("NCCL_DEBUG") == "WARN");
  auto parts = split_probe_output(p, "0: online 0-1\n1: online 0-3\nsrun: warning\n");
  CHECK(parts == std::vector<std::string>{"online 0-1\n", "online 0-3\n"});
  p.launcher = "mpirun";
  p.per_node.argv = {"mpirun", "-np", "2", "--map-by", "ppr:1:node", "--bind-to", "none", "--host", "a:1,b:1"};
  cmd = preflight_command(p);
  CHECK(cmd.argv[9] == "--tag-output");
  CHECK(split_probe_output(p, "[1,1]<stdout>:online 0-3\n[1,0]<stdout>:online 0-1\n") ==
        std::vector<std::string>{"online 0-1\n", "online 0-3\n"});
  p.launcher = "local";
  p.per_node = {};
  CHECK(preflight_command(p).argv == std::vector<std::string>{"sh", "-c", preflight_probe_script()});
}

TEST_CASE("the probe runs here and reports this machine") {
  Plan p;
  p.launcher = "local";
  p.nodes = {node("localhost")};
  PreflightReport r = run_preflight(p);
  for (const auto& n : r.notes) CHECK(n.find("could not run") == std::string::npos);
}

TEST_CASE("blocking: a node whose topology differs from the plan's, with both descriptions") {
  PreflightChecks c{"/b/bind", "/o/preflight/expected_topology.json", "", "", {}};
  auto f = parse_probe_output("n2",
                              "online 0-1\ntopology_2 bind: this node does not match the expected topology (synthetic):\n"
                              "topology_2   packages: expected 2, this node has 1\n",
                              "", c);
  REQUIRE(f.size() == 1);
  CHECK(f[0].blocking);
  CHECK(f[0].what == "bind: this node does not match the expected topology (synthetic):\n  packages: expected 2, this node has 1");
  CHECK(parse_probe_output("n2", "topology_0 bind: this node matches x\n", "", c).empty());
}

TEST_CASE("blocking: an output directory one node cannot see") {
  PreflightChecks c{"", "", "/raid/out/preflight/shared_token", "T1", {}};
  CHECK(parse_probe_output("n1", "shared_token T1\n", "", c).empty());
  auto f = parse_probe_output("n2", "shared_missing\n", "", c);
  REQUIRE(f.size() == 1);
  CHECK(f[0].blocking);
  CHECK(f[0].what == "the output directory is not shared: this node cannot read /raid/out/preflight/shared_token than the harness "
                     "wrote on the first node; every node must see experiment.output_dir (a node-local disk such as /raid is "
                     "not shared)");
  CHECK(parse_probe_output("n2", "shared_token T0\n", "", c)[0].what.find("reads another /raid/out") != std::string::npos);
}

TEST_CASE("the probe runs bind --compare-topology and reads the token here") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("preflight_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // this machine described as 64 packages: not this node
  std::ofstream(dir / "expected.json") << R"({"source": "synthetic", "packages": 64, "cores": 64, "pus": 64,
    "numa": [], "gpus": [], "skipped_devices": [], "has_pci": false, "allowed_cpus": "", "reserved_cpus": "", "this_system": false})";
  std::ofstream(dir / "token") << "T7\n";
  Plan p;
  p.launcher = "local";
  p.nodes = {node("localhost")};
  PreflightChecks c{BERT_BIND, (dir / "expected.json").string(), (dir / "token").string(), "T7", {}};
  PreflightReport r = run_preflight(p, c);
  int blocking = 0;
  for (const auto& f : r.findings) {
    if (!f.blocking) continue;
    ++blocking;
    CHECK(f.what.find("does not match the expected topology") != std::string::npos);
    CHECK(f.what.find("64 packages") != std::string::npos);  // both sides described
  }
  CHECK(blocking == 1);  // the token was read: no finding for it
  c.token_path = (dir / "missing").string();
  r = run_preflight(p, c);
  blocking = 0;
  for (const auto& f : r.findings) blocking += f.blocking ? 1 : 0;
  CHECK(blocking == 2);
  fs::remove_all(dir);
}

TEST_CASE("blocking: a data path a node cannot read; an assumed topology's GPU count") {
  PreflightChecks c;
  c.data_paths = {{"benchmark.data.train_dir", "/lustre/bert/packed"}, {"benchmark.data.eval_dir", "/lustre/bert/eval"}};
  const std::string script = preflight_probe_script(c);
  CHECK(script.find("[ -r /lustre/bert/packed ] || echo \"data_missing benchmark.data.train_dir \"/lustre/bert/packed") !=
        std::string::npos);
  auto f = parse_probe_output("n3", "data_missing benchmark.data.train_dir /lustre/bert/packed\n", "", c);
  REQUIRE(f.size() == 1);
  CHECK(f[0].blocking);
  CHECK(f[0].what == "benchmark.data.train_dir: /lustre/bert/packed cannot be read on this node (missing, or not mounted "
                     "there): every run would fail on it");
  c.expected_gpus = 4;
  CHECK(preflight_probe_script(c).find("nvidia-smi -L") != std::string::npos);
  CHECK(parse_probe_output("n3", "gpu_count 4\n", "", c).empty());
  f = parse_probe_output("n3", "gpu_count 0\n", "", c);
  REQUIRE(f.size() == 1);
  CHECK(f[0].blocking);
  CHECK(f[0].what.find("has 0 GPU(s) (nvidia-smi -L) but the plan assumes 4 per node") == 0);
}

TEST_CASE("the failing rank's last lines, exit statuses explained, failures compared") {
  const std::string log = ":::MLLOG {\"key\": \"cache_clear\"}\nrank0 starting\nTraceback\nFileNotFoundError: /workspace/data\n";
  const std::string ranks = "1: rank1 starting\n2: rank2 line\n1: RuntimeError: NCCL error\n";
  CHECK(rank_last_lines(log, ranks, 0, 2) == std::vector<std::string>{"Traceback", "FileNotFoundError: /workspace/data"});
  CHECK(rank_last_lines(log, ranks, 1, 5) == std::vector<std::string>{"rank1 starting", "RuntimeError: NCCL error"});
  CHECK(rank_last_lines(log, ranks, -1, 1) == std::vector<std::string>{"1: RuntimeError: NCCL error"});
  CHECK(exit_status_meaning("exit status 125").find("the container runtime itself failed") == 0);
  CHECK(exit_status_meaning("exit code 126").find("could not be run") != std::string::npos);
  CHECK(exit_status_meaning("exit status 1").empty());
  CHECK(failure_signature("rank 3 failed with exit status 2; last line: 12:01:02 pid 4242 died") ==
        failure_signature("rank 5 failed with exit status 2; last line: 12:09:33 pid 17 died"));
  CHECK(failure_signature("rank 3 failed with exit code 2") != failure_signature("rank 3 failed with exit code 1"));
  CHECK(failure_signature("rank 3 failed with exit status 2") != failure_signature("rank 3 failed with exit status 1"));
}
