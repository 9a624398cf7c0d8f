// A scratch directory for the results unit tests, removed at scope exit.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

struct ScratchDir {
  std::filesystem::path dir;
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "results_test_XXXXXX").string();
    dir = mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }
};
