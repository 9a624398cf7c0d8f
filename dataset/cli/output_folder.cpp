#include <filesystem>
#include <fmt/core.h>

#include "dataset/cli/commands.h"
#include "trainer/data/data_error.h"

namespace bert::data::cli {
namespace fs = std::filesystem;

void into_new_folder(const std::string& out, const std::function<void(const std::string&)>& make) {
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    throw DataError(fmt::format("{}: already exists and is not an empty folder (remove it, or give another output folder)", out));
  const std::string partial = (fs::path(out).lexically_normal().string() + ".partial");
  fs::remove_all(partial, ec);
  try {
    make(partial);
  } catch (...) {
    fs::remove_all(partial, ec);  // nothing that looks like an output set is left behind
    throw;
  }
  fs::remove(out, ec);  // an empty folder given as the output
  fs::rename(partial, out, ec);
  if (ec) throw DataError(fmt::format("{}: cannot rename the finished {} to it: {}", out, partial, ec.message()));
}

}  // namespace bert::data::cli
