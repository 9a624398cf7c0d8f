// Last line of defence against libhdf5 crashing on corrupt metadata: HDF5 1.10 can segfault,
// abort in free() or run away on some bit-flipped files, before any of our checks can see the
// values. While a thread reads an HDF5 file (a ReadingFile is alive), a fatal signal prints one
// message naming that file and exits 2 instead of dumping core. Programs opt in once at start
// (bert-data does; the trainer should). Without a file being read, signals behave as usual.
#pragma once
#include <string>

namespace bert::data {

void install_hdf5_crash_guard(const char* program);

class ReadingFile {
 public:
  explicit ReadingFile(const std::string& path);
  ~ReadingFile();
  ReadingFile(const ReadingFile&) = delete;
  ReadingFile& operator=(const ReadingFile&) = delete;

 private:
  const char* previous_;
};

}  // namespace bert::data
