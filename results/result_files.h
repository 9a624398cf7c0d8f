// Locating and reading the files of a results directory (shared by checking and scoring).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace bert::results {

// "" when `p` is a regular file (a directory), else "<p>: <what it is>", e.g. "<p>: no such file",
// "<p>: is a FIFO (named pipe), not a regular file", "<p>: is a symlink loop (too many levels of
// symbolic links), not a regular file".
std::string not_a_regular_file(const std::filesystem::path& p);
std::string not_a_directory(const std::filesystem::path& p);

// Run order: result_2.txt before result_10.txt (the number, not the text); names whose middle part
// is not a number (result_a.txt) come after the numbered ones, by name.
bool result_file_order(const std::filesystem::path& a, const std::filesystem::path& b);

// result_*.txt directly in `dir`, in run order; throws UserError when `dir` is not a readable directory.
std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir);

// The whole file; throws UserError when it cannot be read (message from not_a_regular_file).
std::string read_file_bytes(const std::filesystem::path& file);

}  // namespace bert::results
