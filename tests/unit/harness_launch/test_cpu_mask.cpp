// CPU / NUMA lists as the hex masks srun's --cpu-bind=mask_cpu: and --mem-bind=mask_mem: take.
#include <doctest/doctest.h>

#include "common/user_error.h"
#include "harness/launch/cpu_mask.h"

using bert::harness::list_to_hex_mask;

TEST_CASE("cpu lists become hex masks, bit i = CPU i") {
  CHECK(list_to_hex_mask("0", "f") == "0x1");
  CHECK(list_to_hex_mask("0-3", "f") == "0xf");
  CHECK(list_to_hex_mask("4-7", "f") == "0xf0");
  CHECK(list_to_hex_mask("0,2", "f") == "0x5");
  CHECK(list_to_hex_mask("0-11,96-107", "f") == "0xfff000000000000000000000fff");  // > 64 CPUs
  CHECK(list_to_hex_mask("223", "f") == "0x8" + std::string(55, '0'));
}

TEST_CASE("a list that is not one is a user error naming the key") {
  for (const char* bad : {"", "a", "3-1", "1,,2", "-1", "1-"}) {
    CAPTURE(bad);
    try {
      list_to_hex_mask(bad, "binding.cpu_map");
      FAIL("no error");
    } catch (const bert::UserError& e) {
      CHECK(e.field == "binding.cpu_map");
    }
  }
}
