// A BMC's username and password: from a YAML file (`username:`, `password:`; readable by its owner
// only) or from the environment of the monitor ($BMC_USERNAME, $BMC_PASSWORD). Never on a command
// line: ipmitool gets the password through its environment (-E), libcurl through its options.
#pragma once
#include <string>

namespace bert::power {

struct Credentials {
  std::string username;
  std::string password;
};

inline constexpr const char* kUsernameEnv = "BMC_USERNAME";
inline constexpr const char* kPasswordEnv = "BMC_PASSWORD";

// Throws std::runtime_error naming the file or the variables (never their values).
Credentials load_credentials(const std::string& file);

// "" when `file` may hold secrets (a regular file no one but its owner can read), else why not.
std::string credentials_file_problem(const std::string& file);

}  // namespace bert::power
