// Which rank failed and how, read from the launcher's own messages when one srun/mpirun process
// stood for all ranks (srun: "task 3: Exited with exit code 2"; Open MPI: "Process name: [[..],3]").
#pragma once
#include <string>

namespace bert::harness {

struct LauncherFailure {
  int rank = -1;
  std::string status;  // "exit code 2", "Killed", ... ("" when not found)
};

LauncherFailure parse_launcher_failure(const std::string& log_text);

}  // namespace bert::harness
