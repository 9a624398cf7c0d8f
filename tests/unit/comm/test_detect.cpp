#include <doctest/doctest.h>

#include <ostream>
#include <tuple>

#include "tests/unit/comm/env_guard.h"
#include "trainer/comm/comm.h"

using bert::dist::detect_process;
using bert::dist::DistError;
using bert::dist::Pmi;
using bert::dist::ProcessInfo;
using bert::dist::Starter;
using bert::dist::test::EnvGuard;

// Whole ProcessInfos compared, printed when they differ.
namespace bert::dist {
bool operator==(const ProcessInfo& a, const ProcessInfo& b) {
  auto fields = [](const ProcessInfo& p) {
    return std::tie(p.launcher, p.pmi, p.rank, p.size, p.local_rank, p.local_size, p.node, p.num_nodes);
  };
  return fields(a) == fields(b);
}
std::ostream& operator<<(std::ostream& os, const ProcessInfo& p) {
  return os << p.launcher_name() << " pmi " << p.pmi_name() << ": rank " << p.rank << "/" << p.size << ", local " << p.local_rank
            << "/" << p.local_size << ", node " << p.node << "/" << p.num_nodes;
}
}  // namespace bert::dist

TEST_CASE("no launcher variables: a single process without PMI") {
  EnvGuard env;
  auto p = detect_process();
  CHECK(p.launcher == Starter::Single);
  CHECK(p.pmi == Pmi::None);
  CHECK(p.size == 1);
  CHECK(p.rank == 0);
}

TEST_CASE("harness local launcher") {
  EnvGuard env;
  env.set("RANK", "3").set("WORLD_SIZE", "4").set("LOCAL_RANK", "1").set("LOCAL_WORLD_SIZE", "2").set("NODE_RANK", "1");
  CHECK(detect_process() == ProcessInfo{.rank = 3, .size = 4, .local_rank = 1, .local_size = 2,
                                         .node = 1, .num_nodes = 2, .launcher = Starter::Local, .pmi = Pmi::File});
}

TEST_CASE("srun step: SLURM_* and the step's PMI") {
  EnvGuard env;
  env.set("SLURM_PROCID", "5").set("SLURM_NTASKS", "6").set("SLURM_STEP_NUM_TASKS", "6").set("SLURM_LOCALID", "1");
  env.set("SLURM_NODEID", "2").set("SLURM_STEP_NUM_NODES", "3").set("SLURM_STEP_ID", "0");
  env.set("SLURM_STEP_TASKS_PER_NODE", "2(x3)").set("SLURM_MPI_TYPE", "pmix_v4");
  CHECK(detect_process() == ProcessInfo{.rank = 5, .size = 6, .local_rank = 1, .local_size = 2,
                                         .node = 2, .num_nodes = 3, .launcher = Starter::Srun, .pmi = Pmi::Pmix});

  SUBCASE("uneven tasks per node") {
    env.set("SLURM_STEP_TASKS_PER_NODE", "3,2,1").set("SLURM_LOCALID", "0").set("SLURM_PROCID", "5");
    CHECK(detect_process().local_size == 1);
  }
  SUBCASE("PMI2 is found from PMI_FD when SLURM_MPI_TYPE is missing") {
    env.set("SLURM_MPI_TYPE", std::nullopt).set("PMI_FD", "7");
    CHECK(detect_process().pmi == Pmi::Pmi2);
  }
  SUBCASE("BERT_DIST_PMI is the request") {
    env.set("BERT_DIST_PMI", "pmi2");
    CHECK(detect_process().pmi == Pmi::Pmi2);
    env.set("BERT_DIST_PMI", "mpich");
    CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("BERT_DIST_PMI='mpich'"), DistError);
  }
  SUBCASE("a step started with a PMI plugin the trainer does not speak") {
    env.set("SLURM_MPI_TYPE", "cray_shasta");
    CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("--mpi=cray_shasta (SLURM_MPI_TYPE=cray_shasta), a PMI the trainer does not speak"),
                         DistError);
  }
}

TEST_CASE("sbatch batch script without a step is not an srun rank") {
  EnvGuard env;
  env.set("SLURM_PROCID", "0").set("SLURM_NTASKS", "4");
  CHECK(detect_process().launcher == Starter::Single);
}

TEST_CASE("mpirun: OMPI_COMM_WORLD_* and PMIx") {
  EnvGuard env;
  env.set("OMPI_COMM_WORLD_RANK", "3").set("OMPI_COMM_WORLD_SIZE", "4").set("OMPI_COMM_WORLD_LOCAL_RANK", "1");
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "2").set("OMPI_MCA_orte_num_nodes", "2");
  env.set("PMIX_RANK", "3").set("PMIX_NAMESPACE", "123").set("PMIX_SERVER_URI4", "x;tcp4://127.0.0.1:1");
  auto p = detect_process();
  CHECK(p.launcher == Starter::Mpirun);
  CHECK(p.pmi == Pmi::Pmix);
  CHECK(p.node == 1);
  CHECK(p.num_nodes == 2);
  CHECK(p.local_size == 2);
}

TEST_CASE("malformed launcher variables name the variable") {
  EnvGuard env;
  env.set("RANK", "two").set("WORLD_SIZE", "4");
  CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("RANK='two' is not an integer"), DistError);
  env.set("RANK", "4");
  CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("rank 4 outside [0, 4)"), DistError);
  env.set("RANK", "1").set("LOCAL_WORLD_SIZE", "8");
  CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("local size 8"), DistError);
}

TEST_CASE("srun with a malformed SLURM_STEP_TASKS_PER_NODE") {
  EnvGuard env;
  env.set("SLURM_PROCID", "0").set("SLURM_NTASKS", "2").set("SLURM_LOCALID", "0").set("SLURM_STEP_ID", "1");
  env.set("SLURM_STEP_TASKS_PER_NODE", "two");
  CHECK_THROWS_WITH_AS(detect_process(), doctest::Contains("SLURM_STEP_TASKS_PER_NODE='two'"), DistError);
}

TEST_CASE("RANK/WORLD_SIZE exported by bind under srun: srun and its PMI still win") {
  EnvGuard env;
  env.set("SLURM_PROCID", "1").set("SLURM_NTASKS", "2").set("SLURM_LOCALID", "1").set("SLURM_STEP_ID", "3");
  env.set("SLURM_STEP_TASKS_PER_NODE", "2").set("SLURM_MPI_TYPE", "pmi2").set("PMI_FD", "5");
  env.set("RANK", "1").set("WORLD_SIZE", "2").set("LOCAL_RANK", "1").set("LOCAL_WORLD_SIZE", "2");
  auto p = detect_process();
  CHECK(p.launcher == Starter::Srun);
  CHECK(p.pmi == Pmi::Pmi2);

  SUBCASE("a local launcher inside a 1-task srun step: its RANK/WORLD_SIZE disagree, local wins") {
    env.set("SLURM_PROCID", "0").set("SLURM_NTASKS", "1").set("SLURM_LOCALID", "0").set("SLURM_STEP_TASKS_PER_NODE", "1");
    auto q = detect_process();
    CHECK(q.launcher == Starter::Local);
    CHECK(q.pmi == Pmi::File);
    CHECK(q.rank == 1);
    CHECK(q.size == 2);
  }
}

TEST_CASE("RANK/WORLD_SIZE under mpirun agree with OMPI_COMM_WORLD_*: mpirun wins") {
  EnvGuard env;
  env.set("OMPI_COMM_WORLD_RANK", "0").set("OMPI_COMM_WORLD_SIZE", "2").set("RANK", "0").set("WORLD_SIZE", "2");
  CHECK(detect_process().launcher == Starter::Mpirun);
}
