#include "results/log_parser.h"

#include <cmath>

#include "results/pyvalue.h"

namespace bert::results {

std::string latin1_to_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out += ch;
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string_view mllog_payload_line(std::string_view line) {
  const size_t pos = line.rfind(kMllogToken);
  if (pos == std::string_view::npos) return {};
  line.remove_prefix(pos);
  while (!line.empty() && py::is_space(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
  return line;
}

namespace {

// One MLLOG line to a record (string_to_logline). Returns false with `soft` set for a ValueError,
// false with `fatal` set for anything else Python would raise.
bool to_record(std::string_view line, size_t lineno, LogRecord& rec, std::string& soft, std::string& fatal) {
  if (line.size() < kMllogToken.size()) {  // the token's own space was stripped: nothing after it
    soft = "does not match regex";
    return false;
  }
  auto parsed = pyjson::loads(line.substr(kMllogToken.size()));
  if (parsed.too_deep) {
    fatal = "RecursionError: " + parsed.error;
    return false;
  }
  if (!parsed.ok) {
    soft = parsed.error;
    return false;
  }
  json& m = parsed.value;
  if (!m.is_object()) {
    fatal = "TypeError: the MLLOG payload is a JSON " + std::string(m.type_name()) + ", not an object";
    return false;
  }
  auto field = [&](const char* name) -> json* {
    auto it = m.find(name);
    if (it == m.end()) {
      fatal = std::string("KeyError: the MLLOG payload has no '") + name + "' field";
      return nullptr;
    }
    return &*it;
  };
  json* t = field("time_ms");
  if (!t) return false;
  if (parsed.huge_ints > 0 && t->is_number_float() && std::isinf(t->get<double>())) {
    fatal = "OverflowError: time_ms is an integer too large to convert to float";
    return false;
  }
  bool value_error = false;
  auto ts = py::to_float(*t, value_error);
  if (!ts) {
    if (value_error) soft = "could not convert string to float: " + py::repr(*t);
    else fatal = "TypeError: time_ms must be a number or a numeric string, not " + std::string(t->type_name());
    return false;
  }
  json* key = field("key");
  if (!key) return false;
  json* value = field("value");
  if (!value) return false;
  json* metadata = field("metadata");
  if (!metadata) return false;
  rec.line = std::string(line);
  rec.timestamp = *ts;
  rec.key = std::move(*key);
  rec.value = json::object();
  rec.value["value"] = std::move(*value);
  rec.value["metadata"] = std::move(*metadata);
  rec.lineno = lineno;
  return true;
}

}  // namespace

ParsedLog parse_log(std::string_view bytes) {
  ParsedLog out;
  size_t file_line = 0;
  for_each_line(bytes, [&](std::string_view raw) {
    ++file_line;
    if (!out.fatal.empty()) return;
    std::string_view line = mllog_payload_line(raw);
    if (line.empty()) return;
    const size_t lineno = out.mllog_lines++;
    LogRecord rec;
    std::string soft, fatal;
    if (to_record(line, lineno, rec, soft, fatal)) {
      rec.file_line = file_line;
      out.records.push_back(std::move(rec));
    } else if (!fatal.empty()) {
      out.fatal = "line " + std::to_string(lineno) + ": " + fatal;
    } else {
      out.errors.emplace_back(std::string(line), soft);
    }
  });
  return out;
}

}  // namespace bert::results
