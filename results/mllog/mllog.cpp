#include "results/mllog/mllog.h"

#include <chrono>

#include "results/mllog/pyjson.h"

namespace bert::results {
namespace {

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::IntervalStart: return "INTERVAL_START";
    case EventType::IntervalEnd: return "INTERVAL_END";
    case EventType::PointInTime: break;
  }
  return "POINT_IN_TIME";
}

// Like mllog's root_dir option: call sites inside this source tree are logged relative to it.
std::string_view trim_source_root(std::string_view file) {
#ifdef BERT_MLLOG_SOURCE_ROOT
  constexpr std::string_view root = BERT_MLLOG_SOURCE_ROOT;
  if (file.size() > root.size() && file.substr(0, root.size()) == root) file.remove_prefix(root.size());
#endif
  // A compiler run from the build tree with relative paths (e.g. under ccache's base_dir) names the
  // source "../trainer/x.cpp": the same file, relative to the source root.
  while (file.starts_with("../")) file.remove_prefix(3);
  return file;
}

int64_t system_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_mllog_line(int64_t time_ms, EventType type, std::string_view key, const json& value,
                              const json& metadata, std::string_view file, int lineno, std::string_view ns) {
  // Caller info first, then the call's own metadata (which may override it), as mllog does.
  json md = json::object();
  md["file"] = std::string(file);
  md["lineno"] = lineno;
  if (metadata.is_object())
    for (const auto& [k, v] : metadata.items()) md[k] = v;

  std::string line = ":::MLLOG {\"namespace\": ";
  pyjson::dump_to(line, json(std::string(ns)));
  line += ", \"time_ms\": ";
  line += std::to_string(time_ms);
  line += ", \"event_type\": \"";
  line += event_type_name(type);
  line += "\", \"key\": ";
  pyjson::dump_to(line, json(std::string(key)));
  line += ", \"value\": ";
  pyjson::dump_to(line, value);
  line += ", \"metadata\": ";
  pyjson::dump_to(line, md);
  line += '}';
  return line;
}

MLLogger::MLLogger(std::FILE* out, std::string ns) : out_(out), ns_(std::move(ns)), now_ms_(system_now_ms) {}

void MLLogger::set_clock(std::function<int64_t()> now_ms) {
  std::lock_guard lock(mu_);
  now_ms_ = now_ms ? std::move(now_ms) : std::function<int64_t()>(system_now_ms);
}

void MLLogger::event(std::string_view key, const json& value, const json& metadata, std::source_location loc) {
  log(EventType::PointInTime, key, value, metadata, loc);
}
void MLLogger::start(std::string_view key, const json& value, const json& metadata, std::source_location loc) {
  log(EventType::IntervalStart, key, value, metadata, loc);
}
void MLLogger::end(std::string_view key, const json& value, const json& metadata, std::source_location loc) {
  log(EventType::IntervalEnd, key, value, metadata, loc);
}

void MLLogger::log(EventType t, std::string_view key, const json& value, const json& metadata,
                   const std::source_location& loc) {
  if (!enabled_ || out_ == nullptr) return;
  std::lock_guard lock(mu_);
  std::string line = format_mllog_line(now_ms_(), t, key, value, metadata, trim_source_root(loc.file_name()),
                                       static_cast<int>(loc.line()), ns_);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace bert::results
