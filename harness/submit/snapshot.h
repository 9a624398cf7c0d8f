// The implementation folder of a submission package: this project's source at a commit (git archive),
// or an external implementation's folder copied as it is.
#pragma once
#include <string>

namespace bert::harness {

// `git -C repo archive COMMIT | tar -x -C dest`: exactly the committed tree, nothing of the working copy.
// Throws UserError naming the repository and git's message (not a checkout, unknown commit).
void snapshot_commit(const std::string& repo, const std::string& commit, const std::string& dest);

// Copies a folder recursively (symlinks as links). Throws UserError naming the folder.
void snapshot_folder(const std::string& src, const std::string& dest);

}  // namespace bert::harness
