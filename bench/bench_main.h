// The step benches' main: their run(argc, argv), and any exception it lets out as one line
// "NAME: what" on stderr, exit 1.
#pragma once
#include <exception>
#include <iostream>

namespace bert::bench {

inline int bench_main(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace bert::bench
