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

std::optional<int> env_int(const char* name) {
  auto v = env_string(name);
  if (!v) return std::nullopt;
  size_t used = 0;
  int out = 0;
  try {
    out = std::stoi(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v->size())
    throw DistError("environment variable " + std::string(name) + "='" + *v + "' is not an integer");
  return out;
}

int env_int_or(const char* name, int fallback) { return env_int(name).value_or(fallback); }

double env_seconds_or(const char* name, double fallback) {
  auto v = env_string(name);
  if (!v) return fallback;
  size_t used = 0;
  double out = 0;
  try {
    out = std::stod(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v->size() || !(out > 0))
    throw DistError("environment variable " + std::string(name) + "='" + *v +
                    "' must be a positive number of seconds");
  return out;
}

std::chrono::milliseconds collective_timeout() {
  return std::chrono::milliseconds(static_cast<long>(env_seconds_or("BERT_DIST_COLL_TIMEOUT_S", 1800) * 1000));
}

}  // namespace bert::dist
