// The one error type of trainer/data: a user-caused problem with a file (bad HDF5 shard, corrupt
// checkpoint, impossible request). what() is the full one-line message naming the file, the
// dataset or field and, where it applies, the sample index. Tools print it and exit 2.
#pragma once
#include <stdexcept>
#include <string>

#include "common/user_error.h"

namespace bert::data {

using DataError = bert::UserError;

}  // namespace bert::data
