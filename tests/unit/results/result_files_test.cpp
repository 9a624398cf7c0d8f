#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "results/result_files.h"
#include "scratch_dir.h"

using namespace bert::results;

namespace {

std::vector<std::string> names(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.filename().string());
  return out;
}

}  // namespace

TEST_CASE("result files come in run order: result_2 before result_10") {
  ScratchDir d;
  for (const char* n : {"result_10.txt", "result_1.txt", "result_2.txt", "result_0.txt", "result_11.txt",
                        "result_9.txt", "result_x.txt", "result_002.txt", "other.txt"})
    d.write(n, "");
  CHECK(names(result_files(d.dir)) == std::vector<std::string>{"result_0.txt", "result_1.txt", "result_002.txt",
                                                                "result_2.txt", "result_9.txt", "result_10.txt",
                                                                "result_11.txt", "result_x.txt"});
}
