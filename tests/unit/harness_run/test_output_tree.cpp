#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "harness/run/output_tree.h"

using namespace bert::harness;
namespace fs = std::filesystem;

TEST_CASE("experiment indexes are zero padded to the width of NEXP (at least 2)") {
  OutputTree t{"/o", "SYS", "D", 10};
  CHECK(t.index(1) == "01");
  CHECK(t.log(10) == "/o/logs/D_10.log");
  CHECK(t.result(1) == "/o/results/SYS/bert/result_0.txt");
  CHECK(t.config(3) == "/o/configs/run_03.yaml");
  t.nexp = 100;
  CHECK(t.index(7) == "007");
}

TEST_CASE("datestamp looks like run.sub's") {
  std::string d = make_datestamp();
  CHECK(d.size() == 21);
  CHECK(d.find_first_not_of("0123456789") == std::string::npos);
}

TEST_CASE("prepare creates the tree, refuses an impossible place and a too-full disk") {
  fs::remove_all("tree_test");
  OutputTree t{"tree_test/out", "SYS", "", 1};
  prepare_output_tree(t, 0);
  CHECK(fs::is_directory("tree_test/out/results/SYS/bert"));
  CHECK(fs::is_directory("tree_test/out/logs"));
  { std::ofstream("tree_test/file") << "x"; }
  OutputTree bad = t;
  bad.root = "tree_test/file/out";
  CHECK_THROWS_WITH_AS(prepare_output_tree(bad, 0), doctest::Contains("tree_test/file/out: cannot create"), bert::UserError);
  CHECK_THROWS_WITH_AS(prepare_output_tree(t, ~0ull), doctest::Contains("MiB free on the output file system"),
                       bert::UserError);
  fs::remove_all("tree_test");
}

TEST_CASE("atomic write replaces the file and leaves no temporary behind") {
  write_file_atomic("atomic_test.txt", "one");
  write_file_atomic("atomic_test.txt", "two");
  CHECK(read_file("atomic_test.txt") == "two");
  CHECK_FALSE(fs::exists("atomic_test.txt.tmp"));
  fs::remove("atomic_test.txt");
  CHECK_THROWS_AS(write_file_atomic("no/such/dir/f.txt", "x"), bert::UserError);
}
