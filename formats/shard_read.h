// Reading and validating each shard layout from an open file (shard_io.cpp picks the layout). Every
// function checks what it reads and throws DataError "FILE: dataset D, sample I: ..." at the first
// problem. Internal to formats/.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/sequences.h"
#include "formats/shard_io.h"

namespace bert::data::layouts {

// Samples [first, first+count) (count < 0: to the end) of a file of that layout, validated.
SequenceSet read_fixed(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count);
SequenceSet read_varlength(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count);
SequenceSet read_packed(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count);

// The real length of every sequence, from input_ids (varlength) or input_mask (fixed) only.
std::vector<int16_t> lengths_varlength(hid_t f, const std::string& path, const Limits& limits);
std::vector<int16_t> lengths_fixed(hid_t f, const std::string& path, const Limits& limits);

}  // namespace bert::data::layouts
