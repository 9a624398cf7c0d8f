#include "dataset/tfrecord/tfrecord.h"

#include <cstring>
#include <fmt/format.h>

#include "dataset/crc32c.h"
#include "formats/data_error.h"
#include "dataset/file_bytes.h"

namespace bert::data {
namespace {

uint32_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

TFRecordReader::TFRecordReader(std::string path) : path_(std::move(path)), data_(read_file_bytes(path_, "TFRecord file")) {}

bool TFRecordReader::next(std::string_view& record) {
  if (pos_ == data_.size()) return false;
  last_ = pos_;
  auto bad = [&](const std::string& what) {
    return DataError(fmt::format("{}: record at byte offset {}: {}", path_, last_, what));
  };
  if (data_.size() - pos_ < 12) throw bad("truncated length header");
  const char* p = data_.data() + pos_;
  uint64_t len;
  std::memcpy(&len, p, 8);
  if (crc32c_unmask(load32(p + 8)) != crc32c(p, 8)) throw bad("length crc32c mismatch (corrupt file)");
  if (len > data_.size() - pos_ - 12 || data_.size() - pos_ - 12 - len < 4)
    throw bad(fmt::format("truncated: {} data bytes announced", len));
  const char* d = p + 12;
  if (crc32c_unmask(load32(d + len)) != crc32c(d, len)) throw bad("data crc32c mismatch (corrupt file)");
  record = std::string_view(d, len);
  pos_ += 12 + len + 4;
  return true;
}

void append_tfrecord(std::string& out, std::string_view record) {
  const uint64_t len = record.size();
  char head[12];
  std::memcpy(head, &len, 8);
  const uint32_t lc = crc32c_mask(crc32c(head, 8));
  std::memcpy(head + 8, &lc, 4);
  out.append(head, 12);
  out.append(record);
  const uint32_t dc = crc32c_mask(crc32c(record.data(), record.size()));
  out.append(reinterpret_cast<const char*>(&dc), 4);
}

}  // namespace bert::data
