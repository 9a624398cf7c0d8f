#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "process/sha256.h"

using bert::harness::sha256_file;
using bert::harness::sha256_hex;

// Reference digests from Python's hashlib.
TEST_CASE("sha256 of short messages and padding boundaries") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("sha256 of a file larger than the read buffer") {
  std::string path = "sha256_test_file.bin";
  { std::ofstream(path, std::ios::binary) << std::string(1000000, 'a'); }
  CHECK(sha256_file(path) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::remove(path.c_str());
  CHECK_THROWS_WITH(sha256_file("no/such/file"), doctest::Contains("no/such/file"));
}
