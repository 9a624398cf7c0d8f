// A scratch directory for the unit tests (mkdtemp in the system's temp directory), removed with what it
// holds at scope exit.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

struct TempDir {
  std::filesystem::path dir;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "bert_test_XXXXXX").string();
    dir = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The path of `name` inside (sub-folders allowed).
  std::string file(const std::string& name) const { return (dir / name).string(); }
  const std::filesystem::path& path() const { return dir; }
  // `name` written with `text` (its folders made); its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = dir / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};
