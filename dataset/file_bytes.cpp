#include "dataset/file_bytes.h"

#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "formats/data_error.h"

namespace bert::data {

std::string read_file_bytes(const std::string& path, const char* what) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) throw DataError(fmt::format("{}: cannot open {}", path, what));
  std::string data;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) data.append(chunk, n);
  if (std::ferror(f.get())) throw DataError(fmt::format("{}: cannot read {}", path, what));
  return data;
}

}  // namespace bert::data
