#include "trainer/comm/file_kv.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace bert::dist {
namespace fs = std::filesystem;
namespace {

// Keys become file names: keep [A-Za-z0-9._-], escape the rest as %XX.
std::string escape_key(const std::string& key) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  if (!out.empty() && out[0] != '.') return out;
  std::string guarded(1, '%');  // never "", "." or ".."
  guarded.append(out);
  return guarded;
}

// "r<rank>" (built by appending: GCC 12 warns falsely on "r" + std::to_string(...))
std::string rank_dir(int rank) {
  std::string s(1, 'r');
  s.append(std::to_string(rank));
  return s;
}

void write_atomically(const fs::path& target, const std::string& bytes) {
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw DistError("cannot write rendezvous file " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) throw DistError("cannot rename " + tmp.string() + " to " + target.string() + ": " + ec.message());
}

// Polls `ready` with a growing sleep (1 ms .. 50 ms) until it is true or the timeout passes.
template <class Ready>
bool poll_until(Ready ready, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto nap = std::chrono::milliseconds(1);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::milliseconds(50));
  }
  return true;
}

std::string seconds(std::chrono::milliseconds t) {
  std::ostringstream s;
  s << static_cast<double>(t.count()) / 1000.0 << " s";
  return s.str();
}

}  // namespace

FileKVStore::FileKVStore(fs::path dir, int rank, int size, std::chrono::milliseconds timeout)
    : dir_(std::move(dir)), rank_(rank), size_(size), timeout_(timeout) {
  std::error_code ec;
  fs::create_directories(dir_ / "kv" / rank_dir(rank_), ec);
  if (!ec) fs::create_directories(dir_ / "fence", ec);
  if (ec) throw DistError("cannot create rendezvous directory " + dir_.string() + ": " + ec.message());
}

void FileKVStore::put(const std::string& key, const std::string& value) {
  write_atomically(dir_ / "kv" / rank_dir(rank_) / escape_key(key), value);
}

void FileKVStore::fence() {
  const std::string epoch = std::to_string(fences_++);
  write_atomically(dir_ / "fence" / (epoch + ".r" + std::to_string(rank_)), "");
  auto marker = [&](int r) { return dir_ / "fence" / (epoch + ".r" + std::to_string(r)); };
  int next = 0;  // ranks below `next` have arrived
  bool ok = poll_until([&] {
    while (next < size_ && fs::exists(marker(next))) ++next;
    return next == size_;
  }, timeout_);
  if (!ok) {
    std::string missing;
    for (int r = 0; r < size_; ++r)
      if (!fs::exists(marker(r))) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    throw DistError("rank " + std::to_string(rank_) + ": fence " + epoch + " timed out after " + seconds(timeout_) +
                    " in rendezvous dir " + dir_.string() + ": rank(s) " + missing +
                    " never arrived (not started, crashed, or using another directory; BERT_DIST_TIMEOUT_S sets the wait)");
  }
}

std::string FileKVStore::get(const std::string& key, int from_rank) {
  if (from_rank < 0 || from_rank >= size_)
    throw DistError("KV get of '" + key + "' from rank " + std::to_string(from_rank) + " outside [0, " +
                    std::to_string(size_) + ")");
  fs::path file = dir_ / "kv" / rank_dir(from_rank) / escape_key(key);
  if (!poll_until([&] { return fs::exists(file); }, timeout_))
    throw DistError("rank " + std::to_string(rank_) + ": timed out after " + seconds(timeout_) + " waiting for key '" +
                    key + "' from rank " + std::to_string(from_rank) + " (" + file.string() +
                    " does not exist): rank " + std::to_string(from_rank) +
                    " never published it (not started, crashed, or using another rendezvous dir; "
                    "BERT_DIST_TIMEOUT_S sets the wait)");
  std::ifstream f(file, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  if (!f) throw DistError("cannot read rendezvous file " + file.string());
  return s.str();
}

}  // namespace bert::dist
