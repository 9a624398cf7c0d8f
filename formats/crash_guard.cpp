#include "formats/crash_guard.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace bert::data {
namespace {

std::atomic<const char*> g_current{nullptr};
char g_program[64] = "bert-data";
thread_local char t_path[2][1024];
thread_local int t_depth = 0;

void say(const char* s) {
  if (s) (void)!::write(2, s, std::strlen(s));
}

extern "C" void on_fatal_signal(int sig) {
  const char* file = g_current.load();
  if (!file) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  say(g_program);
  say(": ");
  say(file);
  say(": corrupt HDF5 file: the HDF5 library failed while reading it (");
  say(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT" : "SIGFPE");
  say(")\n");
  ::_exit(2);
}

}  // namespace

void install_hdf5_crash_guard(const char* program) {
  std::strncpy(g_program, program, sizeof(g_program) - 1);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE}) sigaction(sig, &sa, nullptr);
}

ReadingFile::ReadingFile(const std::string& path) : previous_(g_current.load()) {
  char* slot = t_path[t_depth < 1 ? t_depth : 1];
  ++t_depth;
  std::strncpy(slot, path.c_str(), sizeof(t_path[0]) - 1);
  slot[sizeof(t_path[0]) - 1] = '\0';
  g_current.store(slot);
}

ReadingFile::~ReadingFile() {
  --t_depth;
  g_current.store(previous_);
}

}  // namespace bert::data
