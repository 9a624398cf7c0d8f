#include "formats/tmp_file.h"

#include <filesystem>
#include <fmt/format.h>

#include "formats/data_error.h"

namespace bert::data {

void publish(const std::string& tmp, const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw DataError(fmt::format("{}: cannot rename from {}: {}", path, tmp, ec.message()));
}

void remove_quietly(const std::string& file) {
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

}  // namespace bert::data
