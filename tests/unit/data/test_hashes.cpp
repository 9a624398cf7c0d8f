#include <doctest/doctest.h>

#include "dataset/md5.h"
#include "trainer/data/rng.h"

using namespace bert::data;

TEST_CASE("md5 test vectors (RFC 1321)") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5_hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(md5_hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
        "57edf4a22be3c955ac49da2e2107b67a");
  Md5 m;
  m.update("abcdefghijklmnopqrstuvwxyz", 10);
  m.update(std::string_view("klmnopqrstuvwxyz"));
  CHECK(m.hex() == "c3fcd3d76192e4007dfb496cca67e13b");
}

TEST_CASE("rng: deterministic, keyed, unbiased enough") {
  Rng a{1, 2}, b{1, 2}, c{2, 1};
  CHECK(a.next() == b.next());
  CHECK(Rng{1, 2}.next() != c.next());
  Rng r{7};
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 30000; ++i) ++counts[r.below(3)];
  for (int n : counts) CHECK(std::abs(n - 10000) < 400);
  for (int i = 0; i < 1000; ++i) {
    const double u = r.uniform();
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
  }
}
