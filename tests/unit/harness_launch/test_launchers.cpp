// Each launcher through the one interface: its hosts, its argv for one task per node and for the
// step, its output tags, how it stops a step and how it names a failed rank.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <functional>

#include "harness/config/config.h"
#include "harness/launch/launcher.h"

using namespace bert::harness;

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
  return s;
}

Config config(std::vector<std::string> sets) {
  Overrides ov;
  ov.sets = std::move(sets);
  return Config::from_text("nodes: {count: 2}\n", "l.yaml", ov);
}

JobShape shape(int nodes, int ranks_per_node, std::vector<std::string> hosts = {}) {
  JobShape j;
  j.nodes = nodes;
  j.ranks_per_node = ranks_per_node;
  j.gpus_per_node = 8;
  j.hosts.names = std::move(hosts);
  j.master_port = "29500";
  return j;
}

// "field: message" of the UserError f throws ("" when none); placed errors give their what().
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const bert::UserError& e) {
    return e.loc.file.empty() ? e.field + ": " + e.message : e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the registry holds every launcher the schema offers, and only those") {
  CHECK(launcher_names() == std::vector<std::string>{"local", "srun", "mpirun"});
  for (const std::string& n : launcher_names()) CHECK(find_launcher(n).name() == n);
  CHECK(error_of([] { find_launcher("flux"); }) == "launcher.type: unknown launcher 'flux' (known: local, srun, mpirun)");
}

TEST_CASE("local: one node here, ranks started by the executor, failed process = failed rank") {
  const Launcher& l = find_launcher("local");
  Config one = Config::from_text("", "l.yaml");
  Hosts h = l.find_hosts(one, {}, 1);
  CHECK(h.names == std::vector<std::string>{"localhost"});
  CHECK(h.master_addr == "127.0.0.1");
  CHECK(error_of([&] { l.find_hosts(config({}), {}, 2); }) == "l.yaml:1:16: nodes.count: the local launcher runs on one node, not 2");
  LaunchLines lines = l.lines(one, shape(1, 2));
  CHECK(lines.per_node.empty());
  CHECK(lines.step.empty());
  CHECK(lines.mpi.empty());
  CHECK(l.starts_each_rank());
  CHECK(l.per_node_tag_flags().empty());
  CHECK(l.stop_command({{"SLURM_JOB_ID", "7"}}).empty());
  RankFailure f = l.read_failure("srun: error: n1: task 5: Killed\n", 3, "exit status 2");
  CHECK(f.rank == 3);
  CHECK(f.status == "exit status 2");
}

TEST_CASE("srun training step: run.sub's flags") {
  const Launcher& srun = find_launcher("srun");
  LaunchLines l = srun.lines(config({"launcher.srun.mpi=pmi2"}), shape(2, 8));
  CHECK(joined(l.step) == "srun -l --mpi=pmi2 --nodes=2 --ntasks=16 --ntasks-per-node=8 --kill-on-bad-exit=1 --cpu-bind=none");
  CHECK(l.mpi == "pmi2");
  l = srun.lines(config({"launcher.srun.mpi=pmi2", "launcher.srun.gres_every_step=true", "launcher.srun.time_per_run=12",
                         "launcher.srun.label=false", "launcher.srun.kill_on_bad_exit=false",
                         "launcher.srun.extra_flags=[--exclusive, --network=sharp]"}),
                 shape(2, 8));
  CHECK(joined(l.step) ==
        "srun --mpi=pmi2 --nodes=2 --ntasks=16 --ntasks-per-node=8 --gres=gpu:8 --cpu-bind=none --time=12 --exclusive "
        "--network=sharp");
}

TEST_CASE("srun one task per node keeps gres and extra flags but has no --mpi, -l or --time") {
  LaunchLines l = find_launcher("srun").lines(
      config({"launcher.srun.gres_every_step=true", "launcher.srun.time_per_run=12", "launcher.srun.extra_flags=[--exclusive]"}),
      shape(4, 8));
  CHECK(joined(l.per_node) == "srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --gres=gpu:8 --exclusive");
}

TEST_CASE("a shape without nodes or ranks is refused with the key") {
  CHECK(error_of([] { find_launcher("srun").lines(config({}), shape(0, 8)); }) == "nodes.count: need at least 1 node, got 0");
  CHECK(error_of([] { find_launcher("mpirun").lines(config({}), shape(1, 0, {"a"})); }) ==
        "nodes.ranks_per_node: need at least 1 task per node, got 0");
}

TEST_CASE("srun hosts: the allocation's nodes, MLPERF_SLURM_FIRSTNODE as the rendezvous; placeholders outside") {
  const Launcher& srun = find_launcher("srun");
  Hosts h = srun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu[01-02]"}}, 2);
  CHECK(h.names == std::vector<std::string>{"gpu01", "gpu02"});
  CHECK(h.master_addr == "gpu01");
  h = srun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu[01-02]"}, {"MLPERF_SLURM_FIRSTNODE", "gpu09"}}, 2);
  CHECK(h.master_addr == "gpu09");
  CHECK(srun.find_hosts(config({}), {}, 2).names.empty());
  CHECK(srun.placeholder_host(3) == "slurm-node-3");
  CHECK(error_of([&] { srun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu01"}}, 2); }) ==
        "l.yaml:1:16: nodes.count: 2 node(s) but this Slurm job has 1 (gpu01): submit with sbatch --nodes=2, or set "
        "nodes.count to 1");
  CHECK(error_of([&] { srun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu[01-"}}, 2); }) ==
        "l.yaml:1:16: nodes.count: cannot read SLURM_JOB_NODELIST='gpu[01-'");
}

TEST_CASE("srun: tagged lines, scancel inside a job, failures from srun's own messages") {
  const Launcher& srun = find_launcher("srun");
  CHECK(srun.tag_style() == RankTagStyle::TaskPrefix);
  CHECK_FALSE(srun.starts_each_rank());
  CHECK(srun.per_node_tag_flags() == std::vector<std::string>{"-l"});
  CHECK(srun.stop_command({{"SLURM_JOB_ID", "77"}}) == std::vector<std::string>{"scancel", "--signal=TERM", "77"});
  CHECK(srun.stop_command({}).empty());
  RankFailure f = srun.read_failure(
      "line\nsrun: error: dgx-03: task 5: Exited with exit code 2\nsrun: error: dgx-01: task 0: Killed\n", 0, "exit status 1");
  CHECK(f.rank == 5);
  CHECK(f.status == "exit code 2");
  f = srun.read_failure("srun: error: n1: tasks 2-3: Killed\n", 0, "exit status 1");
  CHECK(f.rank == 2);
  CHECK(f.status == "Killed");
  f = srun.read_failure("Segmentation fault\n", 0, "exit status 1");
  CHECK(f.rank == -1);
  CHECK(f.status == "srun exit status 1");
}

TEST_CASE("mpirun with a host list, env forwarded with -x") {
  const Launcher& mpirun = find_launcher("mpirun");
  JobShape j = shape(2, 8, {"n1", "n2"});
  j.hosts.master_addr = "n1";
  j.env = {{"NCCL_IB_HCA", "mlx5_1,mlx5_0"}};
  LaunchLines l = mpirun.lines(config({"launcher.mpirun.extra_flags=[--mca, btl, 'self,tcp']"}), j);
  CHECK(joined(l.step) ==
        "mpirun -np 16 --map-by ppr:8:node --bind-to none --host n1:8,n2:8 -x MASTER_ADDR=n1 -x MASTER_PORT=29500 "
        "-x NCCL_IB_HCA=mlx5_1,mlx5_0 --tag-output --mca btl self,tcp");
  CHECK(joined(l.per_node) ==
        "mpirun -np 2 --map-by ppr:1:node --bind-to none --host n1:1,n2:1 -x MASTER_ADDR=n1 -x MASTER_PORT=29500 "
        "-x NCCL_IB_HCA=mlx5_1,mlx5_0 --mca btl self,tcp");
  CHECK(l.mpi.empty());
}

TEST_CASE("mpirun with a hostfile; host list errors") {
  const Launcher& mpirun = find_launcher("mpirun");
  LaunchLines l = mpirun.lines(config({"launcher.mpirun.program=/usr/bin/mpirun", "launcher.mpirun.hostfile=/etc/hosts.mpi"}),
                               shape(171, 8));
  CHECK(joined(l.step) ==
        "/usr/bin/mpirun -np 1368 --map-by ppr:8:node --bind-to none --hostfile /etc/hosts.mpi -x MASTER_PORT=29500 --tag-output");
  CHECK(error_of([&] { mpirun.lines(config({}), shape(171, 8, {"a"})); }) == "launcher.mpirun.hosts: lists 1 hosts for 171 nodes");
  CHECK(error_of([&] { mpirun.lines(config({}), shape(1, 8, {"a:2"})); }) ==
        "launcher.mpirun.hosts: host name 'a:2' is empty or holds ',', ':' or a blank");
}

TEST_CASE("mpirun hosts: one per node from the list, the first is the rendezvous; or a hostfile") {
  const Launcher& mpirun = find_launcher("mpirun");
  Hosts h = mpirun.find_hosts(config({"launcher.type=mpirun", "launcher.mpirun.hosts=[a, b]"}), {}, 2);
  CHECK(h.names == std::vector<std::string>{"a", "b"});
  CHECK(h.master_addr == "a");
  // a hostfile that cannot be read here: placeholders, said in a warning
  h = mpirun.find_hosts(config({"launcher.type=mpirun", "launcher.mpirun.hostfile=/nonexistent/h"}), {}, 2);
  CHECK(h.names.empty());
  CHECK(h.master_addr.empty());
  REQUIRE(h.warnings.size() == 1);
  CHECK(h.warnings[0].find("/nonexistent/h cannot be read here") != std::string::npos);
  CHECK(mpirun.placeholder_host(1) == "host-1");
  CHECK(error_of([&] { mpirun.find_hosts(config({"launcher.mpirun.hosts=[a]"}), {}, 2); }) ==
        "--set launcher.mpirun.hosts=[a]: launcher.mpirun.hosts: mpirun needs launcher.mpirun.hosts with one host per node (2), "
        "launcher.mpirun.hostfile or a Slurm allocation; got 1 host(s)");
}

TEST_CASE("mpirun hosts from the hostfile (Open MPI's format) or the Slurm allocation: real names, the first is the rendezvous") {
  const Launcher& mpirun = find_launcher("mpirun");
  const std::string file = (std::filesystem::temp_directory_path() / ("hosts_" + std::to_string(getpid()))).string();
  std::ofstream(file) << "# the Samsung layout\nsd01 slots=8 max_slots=8\n\nsd02 slots=8  # second\nsd01 slots=8\nsd03\n";
  Hosts h = mpirun.find_hosts(config({"launcher.mpirun.hostfile=" + file}), {}, 2);
  CHECK(h.names == std::vector<std::string>{"sd01", "sd02"});
  CHECK(h.master_addr == "sd01");
  CHECK(h.warnings.empty());
  CHECK(error_of([&] { mpirun.find_hosts(config({"launcher.mpirun.hostfile=" + file}), {}, 4); }).find(file + " names 3 host(s) for 4 nodes") !=
        std::string::npos);
  std::filesystem::remove(file);
  h = mpirun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu[07-08]"}}, 2);
  CHECK(h.names == std::vector<std::string>{"gpu07", "gpu08"});
  CHECK(h.master_addr == "gpu07");
  CHECK(error_of([&] { mpirun.find_hosts(config({}), {{"SLURM_JOB_NODELIST", "gpu[07-09]"}}, 2); })
            .find("2 node(s) but this Slurm job has 3 (gpu[07-09])") != std::string::npos);
}

TEST_CASE("mpirun: Open MPI tags, no stop command, failures from Open MPI's report") {
  const Launcher& mpirun = find_launcher("mpirun");
  CHECK(mpirun.tag_style() == RankTagStyle::OpenMpi);
  CHECK(mpirun.per_node_tag_flags() == std::vector<std::string>{"--tag-output"});
  CHECK(mpirun.stop_command({{"SLURM_JOB_ID", "77"}}).empty());
  RankFailure f = mpirun.read_failure(
      "mpirun detected that one or more processes exited with non-zero status...\n"
      "  Process name: [[51234,1],3]\n  Exit code:    7\n",
      0, "exit status 1");
  CHECK(f.rank == 3);
  CHECK(f.status == "exit code 7");
  f = mpirun.read_failure("  Process name: [[1,1],2]\n  Signal: Killed\n", 0, "exit status 1");
  CHECK(f.rank == 2);
  CHECK(f.status == "signal Killed");
  f = mpirun.read_failure("Segmentation fault\n", 0, "exit status 1");
  CHECK(f.rank == -1);
  CHECK(f.status == "mpirun exit status 1");
}

TEST_CASE("a container runtime entered through a launcher's flags starts only under that launcher") {
  const bert::container::Runtime* pyxis = bert::container::find_runtime("pyxis");
  REQUIRE(pyxis != nullptr);
  CHECK(find_launcher("srun").can_start(*pyxis));
  CHECK_FALSE(find_launcher("mpirun").can_start(*pyxis));
  CHECK_FALSE(find_launcher("local").can_start(*pyxis));
}

TEST_CASE("host names: RFC 1123 names and IP addresses, nothing else (issue 37)") {
  using bert::harness::host_name_problem;
  for (const char* ok : {"node01", "gpu-a100-7.cluster.local", "192.168.16.1", "fe80::1", "n1"}) CHECK(host_name_problem(ok).empty());
  for (const char* bad : {"node_01", "-node", "node-", "a..b", "node 1", "node01:8", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(host_name_problem(bad).empty());
  }
  CHECK(host_name_problem("node_01") == "'node_01' is not a host name (letters, digits and '-' between dots, no '-' at either end of "
                                        "a part) nor an IP address");
}

TEST_CASE("--exclude: the allocation less the bad nodes, srun/sbatch --exclude, refused where the count is fixed") {
  const Launcher& srun = find_launcher("srun");
  const Env alloc{{"SLURM_JOB_NODELIST", "gpu[01-03]"}, {"SLURM_JOB_ID", "7"}, {"MLPERF_SLURM_FIRSTNODE", "gpu01"}};
  // a spare in the job: the set keeps its 2 nodes without gpu01, and the rendezvous leaves it too
  Hosts h = srun.find_hosts(config({}), alloc, NodeRequest{2, 0, {"gpu01"}});
  CHECK(h.names == std::vector<std::string>{"gpu02", "gpu03"});
  CHECK(h.master_addr == "gpu02");
  // no spare: the count is fixed
  CHECK(error_of([&] { srun.find_hosts(config({}), alloc, NodeRequest{3, 0, {"gpu02"}}); })
            .find("nodes.count: 3 node(s) but this Slurm job 7 has 3 (gpu[01-03]) less the excluded gpu02 leaves 2: the "
                  "benchmark's node count is fixed") != std::string::npos);
  // unless nodes.min_count allows fewer
  h = srun.find_hosts(config({}), alloc, NodeRequest{3, 2, {"gpu02"}});
  CHECK(h.names == std::vector<std::string>{"gpu01", "gpu03"});
  REQUIRE(h.warnings.size() == 1);
  CHECK(h.warnings[0].rfind("the set goes on with 2 of its 3 nodes", 0) == 0);
  // a name the job does not have
  CHECK(error_of([&] { srun.find_hosts(config({}), alloc, NodeRequest{2, 0, {"gpu09"}}); }) ==
        "--exclude gpu09: no node gpu09 among this Slurm job's nodes (gpu01,gpu02,gpu03)");
  // every srun step and the sbatch line carry it
  JobShape j = shape(2, 4);
  j.exclude = {"gpu01", "gpu04"};
  LaunchLines l = srun.lines(config({}), j);
  CHECK(joined(l.per_node).find("--exclude=gpu01,gpu04") != std::string::npos);
  CHECK(joined(l.step).find("--exclude=gpu01,gpu04") != std::string::npos);
  CHECK(joined(srun.submit_command(j, "60", "systems/x.yaml")) ==
        "sbatch --nodes=2 --exclude=gpu01,gpu04 --time=60 slurm/run.sub systems/x.yaml");
  // mpirun's listed hosts are what they are; the local launcher has no other node
  CHECK(error_of([] { find_launcher("mpirun").find_hosts(config({"launcher.mpirun.hosts=[a, b]"}), {}, NodeRequest{2, 0, {"b"}}); })
            .find("once --exclude took its own (list a spare host)") != std::string::npos);
  Hosts m = find_launcher("mpirun").find_hosts(config({"launcher.mpirun.hosts=[a, b, c]"}), {}, NodeRequest{2, 0, {"b"}});
  CHECK(m.names == std::vector<std::string>{"a", "c"});
  CHECK(error_of([] { find_launcher("local").find_hosts(config({"nodes.count=1"}), {}, NodeRequest{1, 0, {"x"}}); }) ==
        "--exclude x: the local launcher runs on this one node; there is none to exclude");
}
