#include "dataset/output_folder.h"

#include <filesystem>
#include <fmt/core.h>

#include "formats/data_error.h"

namespace bert::data {
namespace fs = std::filesystem;

std::string partial_folder(const std::string& out) {
  fs::path p = fs::path(out).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p.string() + ".partial";
}

void publish_folder(const std::string& partial, const std::string& out) {
  std::error_code ec;
  if (fs::is_directory(out, ec) && fs::is_empty(out, ec)) fs::remove(out, ec);  // an empty folder given as the output
  ec.clear();
  fs::rename(partial, out, ec);
  if (ec) throw DataError(fmt::format("{}: cannot rename the finished {} to it: {}", out, partial, ec.message()));
}

void into_new_folder(const std::string& out, const std::function<void(const std::string&)>& make) {
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    throw DataError(fmt::format("{}: already exists and is not an empty folder (remove it, or give another output folder)", out));
  const std::string partial = partial_folder(out);
  fs::remove_all(partial, ec);
  try {
    make(partial);
  } catch (...) {
    fs::remove_all(partial, ec);  // nothing that looks like an output set is left behind
    throw;
  }
  publish_folder(partial, out);
}

}  // namespace bert::data
