// Test helpers: a temp directory with small files (removed at scope exit), and the message of a UserError.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include "common/user_error.h"

// The message of the UserError `f` throws ("" when it does not throw).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const bert::UserError& e) {
    return e.what();
  }
  return "";
}

struct TempDir {
  std::filesystem::path dir;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "harness_test_XXXXXX").string();
    dir = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = dir / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};
