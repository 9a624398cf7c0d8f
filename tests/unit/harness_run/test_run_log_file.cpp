#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/user_error.h"
#include "harness/run/run_log_file.h"

using namespace bert::harness;
namespace fs = std::filesystem;

namespace {
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
std::string error_of(const std::string& root, const std::string& pattern, int i, const FileStamps& before) {
  try {
    find_run_log(root, pattern, i, before);
  } catch (const bert::UserError& e) {
    CHECK(e.field == "trainer.log.file");
    return e.message;
  }
  return "";
}
}  // namespace

TEST_CASE("trainer.log.file: the one file a run wrote that the glob matches, experiments sharing one folder") {
  const fs::path root = fs::absolute("run_log_test [root]");  // glob characters in the root are literal
  fs::remove_all(root);
  fs::create_directories(root);
  write(root / "results/old.log", "experiment 1\n");
  write(root / "results/notes.txt", "");
  const FileStamps before = match_run_log(root.string(), "results/*.log", 2);
  CHECK(before.size() == 1);
  CHECK(error_of(root.string(), "results/*.log", 2, before).find("matches no file the run wrote") != std::string::npos);

  write(root / "results/251126_2.log", ":::MLLOG\n");
  CHECK(find_run_log(root.string(), "results/*.log", 2, before) == (root / "results/251126_2.log").string());

  // a rewritten old file counts as written by this run: now two match
  write(root / "results/old.log", "experiment 1, appended by experiment 2\n");
  const std::string two = error_of(root.string(), "results/*.log", 2, before);
  CHECK(two.find("matches 2 files the run wrote (results/251126_2.log, results/old.log)") != std::string::npos);
  CHECK(two.find("it must match exactly one") != std::string::npos);

  // {i} and a character class together
  write(root / "logs/run3_rank0.log", "x\n");
  write(root / "logs/run3_rank1.log", "x\n");
  CHECK(find_run_log(root.string(), "logs/run{i}_rank[0].log", 3, {}) == (root / "logs/run3_rank0.log").string());
  CHECK(error_of(root.string(), "logs/run{i}_rank?.log", 3, {}).find("matches 2 files") != std::string::npos);
  // a folder is not a log
  fs::create_directories(root / "logs/run4.log");
  CHECK(error_of(root.string(), "logs/run{i}.log", 4, {}).find("matches no file") != std::string::npos);
  fs::remove_all(root);
}
