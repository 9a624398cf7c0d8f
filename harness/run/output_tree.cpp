#include "harness/run/output_tree.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/run/output_router.h"

namespace bert::harness {
namespace fs = std::filesystem;

std::string OutputTree::index(int i) const {
  std::string s = std::to_string(i);
  size_t width = std::max<size_t>(2, std::to_string(nexp).size());
  return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

std::string make_datestamp() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm local{};
  localtime_r(&ts.tv_sec, &local);
  char buf[64];
  size_t n = strftime(buf, sizeof(buf), "%y%m%d%H%M%S", &local);
  std::snprintf(buf + n, sizeof(buf) - n, "%09ld", long(ts.tv_nsec));
  return buf;
}

unsigned long long free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (statvfs(dir.c_str(), &st) != 0) return 0;
  return (unsigned long long)st.f_bavail * st.f_frsize;
}

void prepare_output_tree(const OutputTree& t, unsigned long long min_free_bytes) {
  for (const std::string& d : {t.root, t.logs_dir(), t.results_dir(), t.root + "/systems", t.root + "/configs",
                               t.plots_dir()}) {
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) throw UserError(d + ": cannot create the output directory: " + ec.message());
    if (!fs::is_directory(d, ec)) throw UserError(d + ": exists and is not a directory");
  }
  const std::string probe = t.root + "/.write_probe";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw UserError(t.root + ": output directory is not writable: " + std::strerror(errno));
  int err = write_all(fd, "probe\n");
  if (err == 0 && fsync(fd) != 0) err = errno;
  close(fd);
  unlink(probe.c_str());
  if (err != 0) throw UserError(t.root + ": cannot write to the output directory: " + std::strerror(err));
  unsigned long long avail = free_bytes(t.root);
  if (avail < min_free_bytes)
    throw UserError(t.root + ": only " + std::to_string(avail / (1024 * 1024)) +
                      " MiB free on the output file system, need at least " +
                      std::to_string(min_free_bytes / (1024 * 1024)) + " MiB for the logs");
}

void write_file_atomic(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw UserError(tmp + ": cannot create: " + std::strerror(errno));
  int err = write_all(fd, content);
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    throw UserError(path + ": cannot write: " + std::strerror(err));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace bert::harness
