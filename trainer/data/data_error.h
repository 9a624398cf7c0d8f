// The one error type of trainer/data: a user-caused problem with a file (bad HDF5 shard, corrupt
// checkpoint, impossible request). what() is the full one-line message naming the file, the
// dataset or field and, where it applies, the sample index. Tools print it and exit 2.
#pragma once
#include <stdexcept>
#include <string>

namespace bert::data {

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace bert::data
