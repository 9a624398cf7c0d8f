// Evaluating a config_*.sh with bash itself (not a parser of ours): in a scratch copy of its folder (some
// configs create folders when sourced), from that folder (so ${BASH_SOURCE[0]}, dirname, sourced helpers
// and the DGXSYSTEM=$(basename ...) idiom work), in a clean environment holding only what the caller
// passes (NEXP, power flags, data paths), under a time limit, stderr captured. Any failing command of
// the config or of a file it sources is an error at that file and line with bash's own message.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/user_error.h"

namespace bert::harness {

struct BashEvalOptions {
  std::vector<std::string> source_first;       // files sourced before the config (a site's env.sh)
  std::map<std::string, std::string> env;      // the clean environment's variables (NEXP=10, ...)
  double timeout_s = 10;
  std::map<std::string, std::string> stand_ins;  // file name -> content, put in the scratch folder when the
                                                 // config's folder lacks that file (a helper its repository lacks)
};

// A `source`/`.` of a file that is not there: the UserError at its line, plus what was missing and the
// command as written (`source $(dirname ${BASH_SOURCE[0]})/config_${SYSTEM}_common.sh`).
struct MissingSourceError : UserError {
  MissingSourceError(const UserError& e, std::string missing_, std::string command_)
      : UserError(e), missing(std::move(missing_)), command(std::move(command_)) {}
  std::string missing;  // as bash printed it: ./config__common.sh
  std::string command;
};

struct BashEvalResult {
  std::map<std::string, std::string> exported;  // every exported variable after sourcing, minus bash's own
  std::vector<std::string> ignored_lines;       // e.g. bare REDACTED lines ("file:line: REDACTED")
  std::string stderr_text;                      // what bash printed on stderr (set -x traces, warnings)
};

// Throws UserError (file:line of the failing line, bash's message) for a failing line, a config that
// exits, a timeout, or a file that cannot be read; exit code 2 in the CLI.
BashEvalResult bash_eval(const std::string& config, const BashEvalOptions& opts);

// Variables bash or `env -i` sets by itself (PWD, SHLVL, _): never part of a config.
bool is_shell_variable(const std::string& name);

}  // namespace bert::harness
