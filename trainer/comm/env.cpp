#include "trainer/comm/env.h"

#include <cstdlib>
#include <stdexcept>

#include "trainer/comm/comm.h"

namespace bert::dist {

std::optional<std::string> env_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

namespace {

// v read to its end by parse (std::stoi, std::stod: value and characters used); nullopt where it is not
// such a number.
template <typename T, typename Parse>
std::optional<T> whole_number(const std::string& v, Parse parse) {
  size_t used = 0;
  T out{};
  try {
    out = parse(v, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != v.size()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<int> env_int(const char* name) {
  auto v = env_string(name);
  if (!v) return std::nullopt;
  auto out = whole_number<int>(*v, [](const std::string& s, size_t* used) { return std::stoi(s, used); });
  if (!out) throw DistError("environment variable " + std::string(name) + "='" + *v + "' is not an integer");
  return out;
}

int env_int_or(const char* name, int fallback) { return env_int(name).value_or(fallback); }

double env_seconds_or(const char* name, double fallback) {
  auto v = env_string(name);
  if (!v) return fallback;
  auto out = whole_number<double>(*v, [](const std::string& s, size_t* used) { return std::stod(s, used); });
  if (!out || !(*out > 0))
    throw DistError("environment variable " + std::string(name) + "='" + *v +
                    "' must be a positive number of seconds");
  return *out;
}

std::chrono::milliseconds collective_timeout() {
  return std::chrono::milliseconds(static_cast<long>(env_seconds_or("BERT_DIST_COLL_TIMEOUT_S", 1800) * 1000));
}

}  // namespace bert::dist
