// Locating and reading the files of a results directory, with messages that say what a path is
// when it is not the file or directory expected.
#include "results/result_files.h"

#include "common/user_error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

#include "results/check.h"

namespace bert::results {
namespace {

namespace fs = std::filesystem;

// What `p` is, as "a FIFO (named pipe)", or why it cannot be told ("no such file or directory").
std::string describe(const fs::path& p, fs::file_type& type) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  type = st.type();
  if (ec == std::errc::too_many_symbolic_link_levels) return "a symlink loop (too many levels of symbolic links)";
  if (type == fs::file_type::not_found) {
    std::error_code lec;
    if (fs::is_symlink(fs::symlink_status(p, lec)))
      return "a dangling symlink (its target " + fs::read_symlink(p, lec).string() + " does not exist)";
    return "";
  }
  if (ec) return "not accessible: " + ec.message();
  switch (type) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "of an unknown file type";
  }
}

std::string problem(const fs::path& p, fs::file_type want, const char* missing, const char* what) {
  fs::file_type type{};
  std::string kind = describe(p, type);
  if (type == want) return "";
  if (kind.empty()) return p.string() + ": " + missing;
  if (kind.starts_with("not accessible")) return p.string() + ": " + kind;
  return p.string() + ": is " + kind + ", not " + what;
}

}  // namespace

std::string not_a_regular_file(const fs::path& p) {
  return problem(p, fs::file_type::regular, "no such file", "a regular file");
}

std::string not_a_directory(const fs::path& p) {
  return problem(p, fs::file_type::directory, "no such directory", "a directory");
}

bool result_file_order(const fs::path& a, const fs::path& b) {
  // (not a number, digits without leading zeros: shorter is smaller, then text) and the name as tie-break
  auto key = [](const fs::path& p) {
    std::string name = p.filename().string();
    std::string mid = name.size() >= 11 ? name.substr(7, name.size() - 11) : name;
    const bool number = !mid.empty() && std::all_of(mid.begin(), mid.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::string digits = number ? mid.substr(std::min(mid.find_first_not_of('0'), mid.size() - 1)) : mid;
    return std::make_tuple(!number, number ? digits.size() : 0, digits, name);
  };
  return key(a) < key(b);
}

std::vector<fs::path> result_files(const fs::path& dir) {
  if (std::string why = not_a_directory(dir); !why.empty()) throw UserError(why);
  std::error_code ec;
  std::vector<fs::path> out;
  // glob result_*.txt: no recursion, any characters between the prefix and the suffix
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("result_") && name.ends_with(".txt") && name.size() >= 11 && name[0] != '.')
      out.push_back(e.path());
  }
  if (ec) throw UserError(dir.string() + ": cannot be listed: " + ec.message());
  std::sort(out.begin(), out.end(), result_file_order);
  return out;
}

std::string read_file_bytes(const fs::path& file) {
  if (std::string why = not_a_regular_file(file); !why.empty()) throw UserError(why);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be opened: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in) throw UserError(file.string() + ": cannot be read");
  return ss.str();
}

}  // namespace bert::results
