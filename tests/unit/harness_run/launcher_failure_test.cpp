#include <doctest/doctest.h>

#include "harness/run/launcher_failure.h"

using bert::harness::parse_launcher_failure;

TEST_CASE("srun names the failed task") {
  auto f = parse_launcher_failure(
      "line\nsrun: error: dgx-03: task 5: Exited with exit code 2\nsrun: error: dgx-01: task 0: Killed\n");
  CHECK(f.rank == 5);
  CHECK(f.status == "exit code 2");
  f = parse_launcher_failure("srun: error: n1: tasks 2-3: Killed\n");
  CHECK(f.rank == 2);
  CHECK(f.status == "Killed");
}

TEST_CASE("Open MPI names the first failed process") {
  auto f = parse_launcher_failure(
      "mpirun detected that one or more processes exited with non-zero status...\n"
      "  Process name: [[51234,1],3]\n  Exit code:    7\n");
  CHECK(f.rank == 3);
  CHECK(f.status == "exit code 7");
}

TEST_CASE("nothing recognisable") {
  auto f = parse_launcher_failure("Segmentation fault\n");
  CHECK(f.rank == -1);
  CHECK(f.status.empty());
}
