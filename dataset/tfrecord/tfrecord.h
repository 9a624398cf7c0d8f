// TFRecord files: records of (uint64 length, masked crc32c of the length, data, masked crc32c of
// the data). Every CRC is checked; a mismatch or a truncated record is a DataError naming the
// file and the record's byte offset.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace bert::data {

class TFRecordReader {
 public:
  explicit TFRecordReader(std::string path);  // reads the whole file; DataError if unreadable
  bool next(std::string_view& record);        // false at the end of the file
  uint64_t offset() const { return last_; }   // byte offset of the record last returned
  const std::string& path() const { return path_; }

 private:
  std::string path_, data_;
  uint64_t pos_ = 0, last_ = 0;
};

// Appends one framed record (for tests and tools that write TFRecords).
void append_tfrecord(std::string& out, std::string_view record);

}  // namespace bert::data
