// The diagnosis of a missing or mismatched PMI: each message names what to change.
#include <doctest/doctest.h>

#include "tests/unit/comm/env_guard.h"
#include "trainer/comm/comm.h"

using namespace bert::dist;
using bert::dist::test::EnvGuard;

namespace {
EnvGuard& srun_rank0_of_2(EnvGuard& env) {
  env.set("SLURM_PROCID", "0").set("SLURM_NTASKS", "2").set("SLURM_LOCALID", "0").set("SLURM_STEP_ID", "0");
  env.set("SLURM_STEP_TASKS_PER_NODE", "2");
  return env;
}
}  // namespace

TEST_CASE("pmix requested but the step was started with pmi2") {
  EnvGuard env;
  srun_rank0_of_2(env).set("SLURM_MPI_TYPE", "pmi2").set("PMI_FD", "5").set("BERT_DIST_PMI", "pmix");
  auto p = detect_process();
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""),
                       doctest::Contains("srun started this step with --mpi=pmi2 (SLURM_MPI_TYPE=pmi2): "
                                         "launch with `srun --mpi=pmix` (or export SLURM_MPI_TYPE=pmix)"),
                       DistError);
}

TEST_CASE("pmi2 requested but the step was started with pmix") {
  EnvGuard env;
  srun_rank0_of_2(env).set("SLURM_MPI_TYPE", "pmix").set("PMIX_RANK", "0").set("BERT_DIST_PMI", "pmi2");
  auto p = detect_process();
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("launch with `srun --mpi=pmi2`"), DistError);
}

TEST_CASE("srun --mpi=pmix whose PMIx variables never reached the process (container)") {
  EnvGuard env;
  srun_rank0_of_2(env).set("SLURM_MPI_TYPE", "pmix");
  auto p = detect_process();
  CHECK(p.pmi == bert::dist::Pmi::Pmix);
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("did not reach this process"), DistError);
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("use `srun --mpi=pmi2`"), DistError);
}

TEST_CASE("srun --mpi=none with two ranks has no PMI") {
  EnvGuard env;
  srun_rank0_of_2(env).set("SLURM_MPI_TYPE", "none");
  auto p = detect_process();
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""),
                       doctest::Contains("srun started this step with --mpi=none (SLURM_MPI_TYPE=none), so there is no PMI"),
                       DistError);
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("`srun --mpi=pmi2` or `srun --mpi=pmix`"), DistError);
}

TEST_CASE("pmi2 asked for under mpirun") {
  EnvGuard env;
  env.set("OMPI_COMM_WORLD_RANK", "0").set("OMPI_COMM_WORLD_SIZE", "2").set("BERT_DIST_PMI", "pmi2");
  auto p = detect_process();
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("started by mpirun, which provides PMIx"), DistError);
}

TEST_CASE("file rendezvous without a directory") {
  EnvGuard env;
  env.set("RANK", "0").set("WORLD_SIZE", "2");
  auto p = detect_process();
  CHECK_THROWS_WITH_AS(make_kv_store(p, ""), doctest::Contains("rendezvous_dir"), DistError);
  SUBCASE("one rank needs no directory") {
    env.set("WORLD_SIZE", "1");
    auto kv = make_kv_store(detect_process(), "");
    kv->put("k", "v");
    CHECK(kv->get("k", 0) == "v");
  }
}

TEST_CASE("a single process needs no PMI") {
  EnvGuard env;
  auto p = detect_process();
  auto kv = make_kv_store(p, "");
  kv->put("k", std::string("a\0b", 3));
  kv->fence();
  CHECK(kv->get("k", 0) == std::string("a\0b", 3));
  CHECK_THROWS_AS(kv->get("k", 1), DistError);
  auto coll = make_cpu_collective(p, *kv);
  float x = 2;
  coll->allreduce_sum(&x, 1);
  CHECK(x == 2);
  CHECK(coll->size() == 1);
}
