// The rule and reference-data files under results/rules/, compiled into the library by
// embed_files.cmake so the checker works from any directory and inside containers.
#pragma once
#include <span>
#include <string_view>

namespace bert::results {

struct EmbeddedFile {
  std::string_view path;  // relative to results/rules/, e.g. "training_5.0.0/common.yaml"
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_rule_files();  // the compliance rule YAML files
std::string_view embedded_file(std::string_view path);  // any embedded file; empty if absent

}  // namespace bert::results
