// A text file read line by line the way the reference reads it (TF GFile.readline + Python str):
// lines end at '\n' only, every '\r' byte is dropped (also inside a line, before decoding), and
// each line is strict UTF-8. Invalid UTF-8 is a DataError naming the file, line and byte offset
// (the reference dies with a traceback instead).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bert::data::text {

class TextLines {
 public:
  explicit TextLines(std::string path);  // reads the whole file; DataError if unreadable
  // The next line's code points, without its '\n'; false at the end of the file.
  bool next(std::u32string& line);
  int64_t line_number() const { return line_no_; }  // 1-based number of the line last returned
  uint64_t bytes_done() const { return pos_; }
  uint64_t size() const { return data_.size(); }

 private:
  [[noreturn]] void invalid(size_t line_start, size_t bad_index_without_cr) const;
  std::string path_;
  std::string data_;
  std::string bytes_;  // the current line without '\r'
  size_t pos_ = 0;
  int64_t line_no_ = 0;
};

// Strict UTF-8 (as Python's decoder: no overlongs, surrogates or values > U+10FFFF) into `out`.
// Returns the index of the first invalid byte, or std::string::npos.
size_t decode_utf8(std::string_view in, std::u32string& out);

// Python's str.isspace() over every code point (str.strip() leaves nothing): a document break.
bool is_blank(const std::u32string& line);

}  // namespace bert::data::text
