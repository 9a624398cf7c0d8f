// A file that never looks whole before it is: written as PATH.tmp, renamed to PATH once complete,
// removed when writing failed (the shard and weights writers).
#pragma once
#include <string>

namespace bert::data {

// Renames `tmp` to `path`; DataError "PATH: cannot rename from TMP: reason" when that fails.
void publish(const std::string& tmp, const std::string& path);
// Removes `file` if it exists, ignoring errors (the cleanup of a failed write).
void remove_quietly(const std::string& file);

}  // namespace bert::data
