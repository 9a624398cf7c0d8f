// Small helpers shared by the dataset commands (dataset_tools.cpp, reference_steps.cpp).
#pragma once
#include <string>
#include <vector>

#include "dataset/dataset_tools.h"

namespace bert::data {

void make_dir(const std::string& dir);  // DataError if it cannot be created
std::string base_name(const std::string& path);
void tick(const Progress& p, int64_t done, int64_t total);
// A whole fixed or varlength file; a packed one is a DataError naming `what` needs.
SequenceSet read_unpacked(const std::string& path, const Limits& lim, const char* what);
// Fixed output needs L and P: from the flags, else from a fixed input file's widths.
Limits output_limits(const std::vector<std::string>& in, Format format, Limits lim);

}  // namespace bert::data
