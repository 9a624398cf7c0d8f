#include "harness/submit/snapshot.h"

#include <filesystem>

#include "common/user_error.h"
#include "process/capture.h"

namespace bert::harness {
namespace fs = std::filesystem;

void snapshot_commit(const std::string& repo, const std::string& commit, const std::string& dest) {
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec) throw UserError(dest + ": cannot create: " + ec.message());
  // Through a file rather than a pipe: each step's failure is its own message. Absolute: git runs in `repo`.
  const std::string tar = (fs::absolute(dest) / ".snapshot.tar").string();
  Captured a = run_capture({{"git", "-C", repo, "archive", "--format=tar", "-o", tar, commit}, {}}, 600);
  if (!a.ok())
    throw UserError(repo + ": git archive " + commit + " failed (" + a.describe() +
                    "); give the checkout the set ran from with --source, or the code with --implementation");
  Captured x = run_capture({{"tar", "-x", "-f", tar, "-C", dest}, {}}, 600);
  fs::remove(tar, ec);
  if (!x.ok()) throw UserError(dest + ": cannot unpack the snapshot of " + commit + ": " + x.describe());
}

void snapshot_folder(const std::string& src, const std::string& dest) {
  std::error_code ec;
  if (!fs::is_directory(src, ec)) throw UserError(src + ": not a folder (the implementation to put in the package)");
  fs::create_directories(dest, ec);
  fs::copy(src, dest, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) throw UserError(src + ": cannot copy into " + dest + ": " + ec.message());
}

}  // namespace bert::harness
