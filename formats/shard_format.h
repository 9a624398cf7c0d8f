// The shard layouts as a type (data.data_format, benchmark.data.format, bert-data's --format): one
// table of words (common/enum_names.h), from which the run config's and the schema's choices, the parse
// and the printed word come. Header-only: the harness names layouts without linking HDF5.
#pragma once
#include <string>

#include "common/enum_names.h"
#include "formats/data_error.h"

namespace bert::data {

enum class Format { fixed, varlength, packed };
inline constexpr EnumNames<Format, 3> kFormatNames{
    {{Format::fixed, "fixed"}, {Format::varlength, "varlength"}, {Format::packed, "packed"}}};

inline const char* format_name(Format f) { return enum_name(f, kFormatNames); }
// Throws DataError on a word outside the table.
inline Format parse_format(const std::string& name) {
  if (auto f = parse_enum(name, kFormatNames)) return *f;
  throw DataError("unknown data format '" + name + "' (expected fixed, varlength or packed)");
}

}  // namespace bert::data
