#include "harness/import/launcher_script.h"

#include <sstream>

#include "common/user_error.h"
#include "process/capture.h"

namespace bert::harness {

LauncherScriptTopology read_launcher_script(const std::string& path, double timeout_s) {
  // The script itself runs ssh: evaluate only its top-level hosts=/NGPU= assignments.
  ChildSpec spec;
  spec.argv = {"env", "-i", "PATH=/usr/bin:/bin", "bash", "--noprofile", "--norc", "-c",
               "eval \"$(grep -E '^(export )?(hosts|NGPU)=' \"$0\")\" || exit 3; printf '%s\\n' \"${NGPU:-}\" \"${hosts[@]}\"",
               path};
  Captured c = run_capture(spec, timeout_s);
  if (!c.ok()) throw UserError(Loc{path}, "", "bash could not evaluate its hosts=/NGPU= lines: " + c.describe());
  LauncherScriptTopology t;
  std::istringstream in(c.output);
  std::getline(in, t.gpus_per_node);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) t.hosts.push_back(l);
  return t;
}

}  // namespace bert::harness
