#include "harness/run/launcher_failure.h"

#include <regex>
#include <sstream>

namespace bert::harness {

LauncherFailure parse_launcher_failure(const std::string& text) {
  static const std::regex srun_task(R"(srun: error: [^:]*: tasks? (\d+)(?:-\d+)?: (.*)$)");
  static const std::regex ompi_proc(R"(Process name:\s*\[\[\d+,\d+\],(\d+)\])");
  static const std::regex ompi_code(R"(Exit code:\s*(-?\d+))");
  static const std::regex ompi_signal(R"(Signal:\s*(.*)$)");
  LauncherFailure f;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (f.rank < 0 && std::regex_search(line, m, srun_task)) {
      f.rank = std::stoi(m[1]);
      f.status = m[2];
      if (f.status.rfind("Exited with ", 0) == 0) f.status.erase(0, 12);
    } else if (f.rank < 0 && std::regex_search(line, m, ompi_proc)) {
      f.rank = std::stoi(m[1]);
    } else if (f.rank >= 0 && f.status.empty() && std::regex_search(line, m, ompi_code)) {
      f.status = "exit code " + std::string(m[1]);
    } else if (f.rank >= 0 && f.status.empty() && std::regex_search(line, m, ompi_signal)) {
      f.status = "signal " + std::string(m[1]);
    }
  }
  return f;
}

}  // namespace bert::harness
