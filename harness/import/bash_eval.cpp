#include "harness/import/bash_eval.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/user_error.h"
#include "process/capture.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

// Runs in the scratch folder: sources the given files in order; every failing command (ERR, also inside
// sourced files and functions) is recorded as rc<TAB>file<TAB>line<TAB>command; a bare REDACTED line
// (redacted public configs) is recorded apart; an `exit` records its file, line and status before it ends
// the shell. Exported variables are dumped NUL-separated at the end.
constexpr const char* kWrapper = R"(out=$1; shift
__harness_exit_file=$out/exit
exit() { printf '%s\t%s\t%s\n' "${BASH_SOURCE[1]}" "${BASH_LINENO[0]}" "${1:-$?}" > "$__harness_exit_file"; builtin exit "$@"; }
set -o errtrace
trap '__rc=$?; if [ "$BASH_COMMAND" = REDACTED ]; then printf "%s:%s: REDACTED\n" "${BASH_SOURCE[0]}" "$LINENO" >> "$out/redacted"; else printf "%s\t%s\t%s\t%s\n" "$__rc" "${BASH_SOURCE[0]}" "$LINENO" "$BASH_COMMAND" >> "$out/errors"; fi' ERR
for __f in "$@"; do source "$__f"; done
env -0 > "$out/env"
)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The folder's regular files (not subfolders: implementations hold large trees) in a scratch folder
// <tmp>/<parent>/<folder>; the parent's other entries are symlinked beside it, so a helper sourced as
// $(dirname ${BASH_SOURCE[0]})/../common/x.sh is found, and whatever the config creates stays in <tmp>.
fs::path scratch_copy(const fs::path& folder) {
  std::string tmpl = (fs::temp_directory_path() / "harness-import-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw UserError(Loc{folder.string()}, "", "cannot make a scratch folder in " + fs::temp_directory_path().string());
  const fs::path parent = folder.parent_path();
  fs::path scratch = fs::path(tmpl) / parent.filename() / folder.filename();
  fs::create_directories(scratch);
  for (const fs::directory_entry& e : fs::directory_iterator(folder))
    if (e.is_regular_file()) fs::copy_file(e.path(), scratch / e.path().filename());
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(parent, ec))
    if (e.path().filename() != folder.filename()) fs::create_symlink(e.path(), scratch.parent_path() / e.path().filename(), ec);
  fs::create_directories(fs::path(tmpl) / ".out");
  return scratch;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// Bash's own message about `line` of `file` ("./config_X.sh: line 37: ...: No such file or directory").
std::string bash_message(const std::string& stderr_text, const std::string& file, const std::string& line) {
  std::istringstream in(stderr_text);
  const std::string name = fs::path(file).filename().string();
  std::string last;
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '+') continue;  // set -x traces
    if (l.find(name + ": line " + line + ":") != std::string::npos) return l.substr(l.find(": line ") + 2);
    last = l;
  }
  return last;
}

}  // namespace

bool is_shell_variable(const std::string& name) {
  return name == "PWD" || name == "OLDPWD" || name == "SHLVL" || name == "_" || name == "PATH" || name == "HOME";
}

BashEvalResult bash_eval(const std::string& config, const BashEvalOptions& opts) {
  const fs::path cfg = fs::absolute(config).lexically_normal();
  if (!fs::is_regular_file(cfg)) throw UserError(Loc{config}, "", "cannot read the config");
  const fs::path folder = cfg.parent_path();
  const fs::path scratch = scratch_copy(folder);
  const fs::path root = scratch.parent_path().parent_path();
  const fs::path out = root / ".out";
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{root};
  std::ofstream(out / "wrapper.sh") << kWrapper;
  for (const auto& [name, content] : opts.stand_ins)
    if (!fs::exists(scratch / name)) std::ofstream(scratch / name) << content;

  // The original paths in messages, not the scratch copy's.
  auto original = [&](const std::string& s) {
    return replace_all(replace_all(s, scratch.string(), folder.string()), scratch.parent_path().string(), folder.parent_path().string());
  };

  ChildSpec spec;
  spec.argv = {"env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + scratch.string()};
  for (const auto& [k, v] : opts.env) spec.argv.push_back(k + "=" + v);
  spec.argv.insert(spec.argv.end(), {"bash", "--noprofile", "--norc", "-c", "cd \"$0\" && exec 2> \"$1/stderr\" && source \"$1/wrapper.sh\" \"$1\" \"${@:2}\"",
                                     scratch.string(), out.string()});
  for (const std::string& f : opts.source_first) {
    fs::path p = fs::absolute(f).lexically_normal();
    if (!fs::is_regular_file(p)) throw UserError(Loc{f}, "", "cannot read the file to source first");
    spec.argv.push_back(p.string());
  }
  spec.argv.push_back("./" + cfg.filename().string());
  spec.cwd = scratch.string();
  Captured c = run_capture(spec, opts.timeout_s);

  BashEvalResult r;
  r.stderr_text = original(slurp(out / "stderr"));
  const Loc at_config{cfg.string()};
  if (c.timed_out)
    throw UserError(at_config, "", "bash did not finish sourcing it within " + std::to_string(int(opts.timeout_s)) +
                                       " s (a command waits for input or the network?)");
  if (!c.started) throw UserError(at_config, "", "cannot start bash: " + c.start_error);

  std::istringstream errors(slurp(out / "errors"));
  for (std::string l; std::getline(errors, l);) {
    std::vector<std::string> f;
    std::stringstream ls(l);
    for (std::string part; std::getline(ls, part, '\t');) f.push_back(part);
    if (f.size() < 4) continue;
    std::string file = original(f[1]);
    if (file.rfind("./", 0) == 0) file.erase(0, 2);
    const fs::path shown = fs::path(file).is_absolute() ? fs::path(file) : folder / file;
    std::string msg = bash_message(r.stderr_text, f[1], f[2]);
    if (msg.empty()) msg = "`" + f[3] + "` failed with exit status " + f[0];
    const UserError e(Loc{shown.string(), std::stoi(f[2]), 0}, "", "bash: " + msg);
    const std::string tail = ": No such file or directory";
    const bool sources = f[3].rfind("source ", 0) == 0 || f[3].rfind(". ", 0) == 0;
    if (sources && msg.size() > tail.size() && msg.compare(msg.size() - tail.size(), tail.size(), tail) == 0) {
      std::string missing = msg.substr(0, msg.size() - tail.size());
      if (auto at = missing.rfind(": "); at != std::string::npos) missing.erase(0, at + 2);  // "line 38: ./x.sh"
      throw MissingSourceError(e, original(missing), f[3]);
    }
    throw e;
  }
  std::istringstream redacted(slurp(out / "redacted"));
  for (std::string l; std::getline(redacted, l);) {
    l = original(l);
    if (l.rfind("./", 0) == 0) l = (folder / l.substr(2)).string();
    r.ignored_lines.push_back(l);
  }

  if (!fs::exists(out / "env") && fs::exists(out / "exit")) {  // the config (or a file it sources) ran `exit`
    std::vector<std::string> f;
    std::stringstream ls(slurp(out / "exit"));
    for (std::string part; std::getline(ls, part, '\t');) f.push_back(part);
    if (f.size() >= 3) {
      std::string file = original(f[0]);
      if (file.rfind("./", 0) == 0) file.erase(0, 2);
      const fs::path shown = fs::path(file).is_absolute() ? fs::path(file) : folder / file;
      int line = 0;
      try {
        line = std::stoi(f[1]);
      } catch (const std::exception&) {
      }
      while (!f[2].empty() && f[2].back() == '\n') f[2].pop_back();
      throw UserError(Loc{shown.string(), line, 0}, "", "`exit " + f[2] + "` ends the shell that sources the config, before it "
                                                           "has set everything (a config sourced by run.sub must not exit; " +
                                                           "--env NAME=VALUE gives what its test wants)" +
                                                           (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 400)));
    }
  }
  if (!fs::exists(out / "env")) {
    std::string why = c.describe();
    throw UserError(at_config, "", "sourcing it ended the shell (" + why + ")" +
                                       (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 400)));
  }
  const std::string env = slurp(out / "env");
  for (size_t at = 0; at < env.size();) {
    size_t end = env.find('\0', at);
    if (end == std::string::npos) end = env.size();
    std::string kv = env.substr(at, end - at);
    at = end + 1;
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string k = kv.substr(0, eq);
    if (is_shell_variable(k)) continue;
    r.exported[k] = original(kv.substr(eq + 1));  // ${PWD}, $(dirname ...): the config's own folder
  }
  return r;
}

}  // namespace bert::harness
