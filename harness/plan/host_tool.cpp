#include "harness/plan/host_tool.h"

#include <filesystem>

namespace bert::harness {
namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::string host_tool(const std::string& bin_dir, const std::string& name) {
  if (!bin_dir.empty()) return bin_dir + "/" + name;
  // Next to this executable; in a build tree a binary may sit in build/ or build/bin/ (see the CMakeLists).
  fs::path dir = executable_dir();
  std::error_code ec;
  for (const fs::path& cand : {dir / name, dir / "bin" / name, dir.parent_path() / name}) {
    if (cand.parent_path() == dir.parent_path() && dir.filename() != "bin") continue;
    if (fs::exists(cand, ec) && !fs::is_directory(cand, ec)) return cand.string();
  }
  return (dir / name).string();
}

std::string find_system_file(const std::string& given) {
  std::error_code ec;
  if (given.empty() || given.front() == '/' || fs::exists(given, ec)) return given;
  const fs::path share = fs::path(executable_dir()).parent_path() / "share" / "bert-harness";
  for (const fs::path& cand : {share / given, share / "systems" / given})
    if (fs::is_regular_file(cand, ec)) return cand.string();
  return given;
}

}  // namespace bert::harness
