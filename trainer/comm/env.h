// Reading launcher environment variables with errors that name the variable.
#pragma once
#include <chrono>
#include <optional>
#include <string>

namespace bert::dist {

std::optional<std::string> env_string(const char* name);         // unset or empty -> nullopt
std::optional<int> env_int(const char* name);                    // DistError if not an integer
int env_int_or(const char* name, int fallback);
double env_seconds_or(const char* name, double fallback);        // DistError unless > 0
// How long a CPU collective waits for a peer: BERT_DIST_COLL_TIMEOUT_S, default 1800 s.
std::chrono::milliseconds collective_timeout();

}  // namespace bert::dist
