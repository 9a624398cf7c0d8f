#include "power/credentials.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <stdexcept>

namespace bert::power {

std::string credentials_file_problem(const std::string& file) {
  struct stat st{};
  if (::stat(file.c_str(), &st) != 0) return file + ": no such file";
  if (!S_ISREG(st.st_mode)) return file + ": not a regular file";
  if (st.st_mode & (S_IRWXG | S_IRWXO)) return file + ": group or others may read it (chmod 600 " + file + ")";
  return "";
}

Credentials load_credentials(const std::string& file) {
  Credentials c;
  if (file.empty()) {
    const char* u = std::getenv(kUsernameEnv);
    const char* p = std::getenv(kPasswordEnv);
    if (!u || !p)
      throw std::runtime_error(std::string("no BMC credentials: set power.credentials_file, or $") + kUsernameEnv + " and $" +
                               kPasswordEnv + " in the monitor's environment");
    return {u, p};
  }
  if (const std::string problem = credentials_file_problem(file); !problem.empty()) throw std::runtime_error(problem);
  try {
    const YAML::Node y = YAML::LoadFile(file);
    if (!y.IsMap() || !y["username"] || !y["password"])
      throw std::runtime_error(file + ": expected a mapping with username: and password:");
    c.username = y["username"].as<std::string>();
    c.password = y["password"].as<std::string>();
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(e.mark.line + 1) + ": not YAML username/password: " + e.msg);
  }
  return c;
}

}  // namespace bert::power
