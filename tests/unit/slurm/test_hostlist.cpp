#include <doctest/doctest.h>

#include "slurm/hostlist.h"

using bert::slurm::expand_hostlist;
using V = std::vector<std::string>;

TEST_CASE("host lists expand like scontrol show hostnames") {
  CHECK(*expand_hostlist("localhost") == V{"localhost"});
  CHECK(*expand_hostlist("gpu[01-03,07],login1") == V{"gpu01", "gpu02", "gpu03", "gpu07", "login1"});
  CHECK(*expand_hostlist("compute-h100-1") == V{"compute-h100-1"});
  CHECK(*expand_hostlist("r[1-2]n[8-9]") == V{"r1n8", "r1n9", "r2n8", "r2n9"});
  CHECK(*expand_hostlist("n[098-101]") == V{"n098", "n099", "n100", "n101"});
}

TEST_CASE("malformed host lists are refused") {
  CHECK_FALSE(expand_hostlist(""));
  CHECK_FALSE(expand_hostlist("gpu[01-03"));
  CHECK_FALSE(expand_hostlist("gpu[3-1]"));
  CHECK_FALSE(expand_hostlist("gpu[a-b]"));
  CHECK_FALSE(expand_hostlist("a,,b"));
  CHECK_FALSE(expand_hostlist("a b"));
}
