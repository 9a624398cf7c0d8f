// A scratch file for the tests that hand a child or the output router a file descriptor: opened and
// already unlinked, and read back from its start.
#pragma once
#include <stdlib.h>
#include <unistd.h>

#include <string>

inline int temp_fd() {
  char name[] = "/tmp/harness_run_testXXXXXX";
  int fd = mkstemp(name);
  unlink(name);
  return fd;
}

// All that fd holds.
inline std::string slurp(int fd) {
  std::string out;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  return out;
}
