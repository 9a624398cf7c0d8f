// trainer.log.source file: which file is a run's MLPerf log. trainer.log.file is a pattern relative to
// the output directory: {i} is the experiment index, and *, ? and [...] match as in the shell (glob(3)).
// Experiments may share one folder (NVIDIA's /results), so of the files the pattern matches only those
// the run wrote count: new, or changed since a stamp taken before the run. Exactly one must remain.
#pragma once
#include <map>
#include <string>

namespace bert::harness {

// What identifies one version of a file (a rewrite changes at least one of them).
struct FileStamp {
  long long mtime_ns = 0, size = 0, inode = 0;
  bool operator==(const FileStamp&) const = default;
};
using FileStamps = std::map<std::string, FileStamp>;  // path -> stamp

// The files `pattern` matches under `root` now, for experiment `index`.
FileStamps match_run_log(const std::string& root, const std::string& pattern, int index);

// The one matching file the run wrote (not in `before`, or changed); throws UserError on field
// trainer.log.file when none or several did, naming them.
std::string find_run_log(const std::string& root, const std::string& pattern, int index, const FileStamps& before);

}  // namespace bert::harness
