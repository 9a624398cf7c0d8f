#include <doctest/doctest.h>

#include "binding/binding.h"
#include "binding/cpu_list.h"
#include "fixtures.h"

using namespace bert::binding;
using bert::binding::test::binding_error;

TEST_CASE("cpu lists: parse and format round trip") {
  CHECK(parse_list("0-3,8,10-11", "f") == IndexList{0, 1, 2, 3, 8, 10, 11});
  CHECK(format_list(parse_list("10-11,0-3,8,2", "f")) == "0-3,8,10-11");
  CHECK(parse_list("", "f").empty());
  CHECK(format_list({}) == "");
  CHECK(parse_list(" 1 , 3-4 ", "f") == IndexList{1, 3, 4});
  CHECK(format_list({84, 85, 86, 180}) == "84-86,180");
}

TEST_CASE("cpu lists: bad syntax is a UserError naming the field and the bad part") {
  for (const char* bad : {"abc", "1-", "-3", "3-1", "1,,2", "0x3", "1-2-3", "99999999"}) {
    auto [field, msg] = binding_error([&] { parse_list(bad, "binding.cpu_map[2]"); });
    INFO(bad << " -> " << msg);
    CHECK(field == "binding.cpu_map[2]");
    CHECK(msg.find(std::string("'") + bad + "'") != std::string::npos);
  }
}

TEST_CASE("cpu lists: set operations and numactl-style message") {
  IndexList allowed = parse_list("0-83,96-179", "f");
  CHECK(first_outside(parse_list("84-95,180-191", "f"), allowed) == 84);
  CHECK(first_outside(parse_list("0-11,96-107", "f"), allowed) == -1);
  CHECK(format_list(list_minus(parse_list("0-191", "f"), parse_list("84-95,180-191", "f"))) == "0-83,96-179");
  CHECK(out_of_range_message("cpu", 95, allowed) == "cpu argument 95 is out of range (allowed: 0-83,96-179)");
}
