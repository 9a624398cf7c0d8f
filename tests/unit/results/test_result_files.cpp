#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "common/user_error.h"
#include "results/check.h"
#include "results/result_files.h"
#include "tests/unit/temp_dir.h"

using namespace bert::results;

namespace {

std::vector<std::string> names(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.filename().string());
  return out;
}

}  // namespace

TEST_CASE("result files come in run order: result_2 before result_10") {
  TempDir d;
  for (const char* n : {"result_10.txt", "result_1.txt", "result_2.txt", "result_0.txt", "result_11.txt",
                        "result_9.txt", "result_x.txt", "result_002.txt", "other.txt"})
    d.write(n, "");
  CHECK(names(result_files(d.dir)) == std::vector<std::string>{"result_0.txt", "result_1.txt", "result_002.txt",
                                                                "result_2.txt", "result_9.txt", "result_10.txt",
                                                                "result_11.txt", "result_x.txt"});
}

TEST_CASE("a path that is not a regular file is named for what it is, not 'no such file'") {
  TempDir d;
  const auto loop = d.dir / "loop.txt";
  std::filesystem::create_symlink(loop, loop);
  const auto fifo = d.dir / "fifo.txt";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const auto dangling = d.dir / "dangling.txt";
  std::filesystem::create_symlink(d.dir / "gone.txt", dangling);
  const std::filesystem::path file = d.write("result_0.txt", "x");
  const std::string p = d.dir.string();

  CHECK(not_a_regular_file(file) == "");
  CHECK(not_a_regular_file(d.dir / "missing.txt") == p + "/missing.txt: no such file");
  CHECK(not_a_regular_file(loop) == p + "/loop.txt: is a symlink loop (too many levels of symbolic links), not a regular file");
  CHECK(not_a_regular_file(fifo) == p + "/fifo.txt: is a FIFO (named pipe), not a regular file");
  CHECK(not_a_regular_file("/dev/null") == "/dev/null: is a character device, not a regular file");
  CHECK(not_a_regular_file(d.dir) == p + ": is a directory, not a regular file");
  CHECK(not_a_regular_file(dangling) == p + "/dangling.txt: is a dangling symlink (its target " + p +
                                            "/gone.txt does not exist), not a regular file");
  CHECK(not_a_directory(d.dir) == "");
  CHECK(not_a_directory(file) == file.string() + ": is a regular file, not a directory");
  CHECK(not_a_directory(loop) == p + "/loop.txt: is a symlink loop (too many levels of symbolic links), not a directory");
  CHECK(not_a_directory(d.dir / "missing") == p + "/missing: no such directory");

  auto error_of = [](const std::filesystem::path& f) -> std::string {
    try {
      read_file_bytes(f);
    } catch (const bert::UserError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error_of(fifo) == not_a_regular_file(fifo));  // and it does not block on the FIFO
  CHECK(error_of("/dev/zero") == "/dev/zero: is a character device, not a regular file");
  CHECK(error_of(loop) == not_a_regular_file(loop));
  CHECK(read_file_bytes(file) == "x");
}
