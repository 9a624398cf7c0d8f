// Locating and reading the files of a results directory (shared by checking and scoring).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace bert::results {

// result_*.txt directly in `dir`, sorted; throws UsageError when `dir` is not a readable directory.
std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir);

// The whole file; throws UsageError when it cannot be read.
std::string read_file_bytes(const std::filesystem::path& file);

}  // namespace bert::results
