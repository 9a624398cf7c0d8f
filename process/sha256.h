// SHA-256 of files, for the result checksums in summary.md (nettle's, FIPS 180-4).
#pragma once
#include <string>
#include <string_view>

namespace bert::harness {

std::string sha256_hex(std::string_view data);
// Throws std::runtime_error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace bert::harness
