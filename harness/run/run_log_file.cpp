#include "harness/run/run_log_file.h"

#include <glob.h>
#include <sys/stat.h>

#include <vector>

#include "common/user_error.h"

namespace bert::harness {
namespace {

// The root is a path, not a pattern: its own *, ?, [ and \ are escaped for glob(3).
std::string escape_glob(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string for_index(std::string pattern, int index) {
  for (size_t at; (at = pattern.find("{i}")) != std::string::npos;) pattern.replace(at, 3, std::to_string(index));
  return pattern;
}

}  // namespace

FileStamps match_run_log(const std::string& root, const std::string& pattern, int index) {
  FileStamps out;
  glob_t g{};
  const std::string full = escape_glob(root) + "/" + for_index(pattern, index);
  if (::glob(full.c_str(), 0, nullptr, &g) == 0) {
    for (size_t k = 0; k < g.gl_pathc; ++k) {
      struct stat st {};
      if (::stat(g.gl_pathv[k], &st) != 0 || !S_ISREG(st.st_mode)) continue;
      out[g.gl_pathv[k]] = {static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                            static_cast<long long>(st.st_size), static_cast<long long>(st.st_ino)};
    }
  }
  ::globfree(&g);
  return out;
}

std::string find_run_log(const std::string& root, const std::string& pattern, int index, const FileStamps& before) {
  std::vector<std::string> written;
  for (const auto& [path, stamp] : match_run_log(root, pattern, index)) {
    auto it = before.find(path);
    if (it == before.end() || !(it->second == stamp)) written.push_back(path);
  }
  const std::string what = "'" + pattern + "' (in " + root + ", experiment " + std::to_string(index) + ")";
  if (written.empty())
    throw UserError("trainer.log.file", what + " matches no file the run wrote: the trainer wrote its log elsewhere, or none");
  if (written.size() > 1) {
    std::string names;
    for (const std::string& p : written) names += (names.empty() ? "" : ", ") + p.substr(root.size() + 1);
    throw UserError("trainer.log.file", what + " matches " + std::to_string(written.size()) + " files the run wrote (" + names +
                                            "); it must match exactly one");
  }
  return written.front();
}

}  // namespace bert::harness
