#include "dataset/text/text_lines.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "formats/data_error.h"
#include "dataset/file_bytes.h"
#include "dataset/text/unicode_props.h"

namespace bert::data::text {

size_t decode_utf8(std::string_view in, std::u32string& out) {
  out.clear();
  out.reserve(in.size());
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      out.push_back(c);
      ++i;
      continue;
    }
    auto cont = [&](size_t k) { return i + k < n && (p[i + k] & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) {
      if (!cont(1)) return i;
      out.push_back(static_cast<char32_t>((c & 0x1F) << 6 | (p[i + 1] & 0x3F)));
      i += 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      if (!cont(1) || !cont(2)) return i;
      if ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] > 0x9F)) return i;
      out.push_back(static_cast<char32_t>((c & 0x0F) << 12 | (p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F)));
      i += 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      if (!cont(1) || !cont(2) || !cont(3)) return i;
      if ((c == 0xF0 && p[i + 1] < 0x90) || (c == 0xF4 && p[i + 1] > 0x8F)) return i;
      out.push_back(static_cast<char32_t>((c & 0x07) << 18 | (p[i + 1] & 0x3F) << 12 | (p[i + 2] & 0x3F) << 6 |
                                          (p[i + 3] & 0x3F)));
      i += 4;
    } else {
      return i;
    }
  }
  return std::string::npos;
}

TextLines::TextLines(std::string path) : path_(std::move(path)), data_(read_file_bytes(path_, "text")) {}

bool TextLines::next(std::u32string& line) {
  if (pos_ >= data_.size()) return false;
  const size_t start = pos_;
  const char* nl = static_cast<const char*>(std::memchr(data_.data() + start, '\n', data_.size() - start));
  const size_t end = nl ? static_cast<size_t>(nl - data_.data()) : data_.size();
  pos_ = nl ? end + 1 : end;
  ++line_no_;
  bytes_.assign(data_, start, end - start);
  bytes_.erase(std::remove(bytes_.begin(), bytes_.end(), '\r'), bytes_.end());
  const size_t bad = decode_utf8(bytes_, line);
  if (bad != std::string::npos) invalid(start, bad);
  return true;
}

void TextLines::invalid(size_t line_start, size_t bad) const {
  size_t at = line_start;
  for (size_t kept = 0; at < data_.size(); ++at) {
    if (data_[at] == '\r') continue;
    if (kept++ == bad) break;
  }
  throw DataError(fmt::format("{}:{}: invalid UTF-8 at byte offset {} (byte 0x{:02x}); the text must be UTF-8", path_,
                              line_no_, at, static_cast<unsigned char>(data_[at])));
}

bool is_blank(const std::u32string& line) {
  return std::all_of(line.begin(), line.end(), [](char32_t c) { return props(c).space; });
}

}  // namespace bert::data::text
