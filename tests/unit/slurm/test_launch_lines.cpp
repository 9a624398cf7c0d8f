#include <doctest/doctest.h>

#include "slurm/launch_lines.h"

using namespace bert::slurm;

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
  return s;
}
}  // namespace

TEST_CASE("srun training step: run.sub's flags") {
  SrunOptions o;
  o.mpi = "pmi2";
  o.nodes = 2;
  o.tasks_per_node = 8;
  CHECK(joined(srun_step(o)) == "srun -l --mpi=pmi2 --nodes=2 --ntasks=16 --ntasks-per-node=8 --kill-on-bad-exit=1 --cpu-bind=none");
  o.gres_gpus = 8;
  o.time = "12";
  o.label = false;
  o.kill_on_bad_exit = false;
  o.extra_flags = {"--exclusive", "--network=sharp"};
  CHECK(joined(srun_step(o)) ==
        "srun --mpi=pmi2 --nodes=2 --ntasks=16 --ntasks-per-node=8 --gres=gpu:8 --cpu-bind=none --time=12 --exclusive "
        "--network=sharp");
}

TEST_CASE("srun one task per node keeps gres but has no --mpi, -l or --time") {
  SrunOptions o;
  o.nodes = 4;
  o.tasks_per_node = 8;
  o.gres_gpus = 8;
  o.time = "12";
  CHECK(joined(srun_per_node(o)) == "srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --gres=gpu:8");
}

TEST_CASE("srun rejects bad values with the field") {
  SrunOptions o;
  o.mpi = "openmpi";
  try {
    srun_step(o);
    FAIL("no error");
  } catch (const LaunchError& e) {
    CHECK(e.field == "launcher.srun.mpi");
  }
  o.mpi = "pmix";
  o.nodes = 0;
  CHECK_THROWS_AS(srun_step(o), LaunchError);
  o.nodes = 1;
  o.tasks_per_node = 0;
  CHECK_THROWS_AS(srun_step(o), LaunchError);
}

TEST_CASE("mpirun with a host list, env forwarded with -x") {
  MpirunOptions o;
  o.hosts = {"n1", "n2"};
  o.nodes = 2;
  o.tasks_per_node = 8;
  o.env = {{"NCCL_IB_HCA", "mlx5_1,mlx5_0"}, {"MASTER_ADDR", "n1"}};
  o.extra_flags = {"--mca", "btl", "self,tcp"};
  CHECK(joined(mpirun_step(o)) ==
        "mpirun -np 16 --map-by ppr:8:node --bind-to none --host n1:8,n2:8 -x MASTER_ADDR=n1 -x NCCL_IB_HCA=mlx5_1,mlx5_0 "
        "--tag-output --mca btl self,tcp");
  CHECK(joined(mpirun_per_node(o)).starts_with("mpirun -np 2 --map-by ppr:1:node --bind-to none --host n1:1,n2:1"));
}

TEST_CASE("mpirun with a hostfile; host list errors") {
  MpirunOptions o;
  o.program = "/usr/bin/mpirun";
  o.hostfile = "/etc/hosts.mpi";
  o.nodes = 171;
  o.tasks_per_node = 8;
  CHECK(joined(mpirun_step(o)) == "/usr/bin/mpirun -np 1368 --map-by ppr:8:node --bind-to none --hostfile /etc/hosts.mpi --tag-output");
  o.tag_output = false;
  CHECK(joined(mpirun_step(o)) == "/usr/bin/mpirun -np 1368 --map-by ppr:8:node --bind-to none --hostfile /etc/hosts.mpi");
  o.hostfile.clear();
  o.hosts = {"a"};
  CHECK_THROWS_WITH_AS(mpirun_step(o), "lists 1 hosts for 171 nodes", LaunchError);
  o.nodes = 1;
  o.hosts = {"a:2"};
  CHECK_THROWS_AS(mpirun_step(o), LaunchError);
}
