// A whole (binary) file in memory, for the readers that parse it themselves (TF index, pack spill).
#pragma once
#include <string>

namespace bert::data {

// DataError "PATH: cannot open WHAT" / "PATH: cannot read WHAT".
std::string read_file_bytes(const std::string& path, const char* what);

}  // namespace bert::data
