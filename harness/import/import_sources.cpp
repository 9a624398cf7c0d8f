// Sourcing the config (bash_eval.h) with a stand-in for each helper its folder lacks, and the names a
// submitter gave NVIDIA's DGX* variables.
#include <algorithm>
#include <filesystem>
#include <regex>

#include "common/user_error.h"
#include "harness/config/config.h"
#include "harness/config/did_you_mean.h"
#include "harness/config/naming.h"
#include "harness/import/import_state.h"
#include "harness/plan/node_layout.h"
#include "harness/run/output_tree.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

// A helper the config sources that its folder lacks (its repository lacks it: a config copied out of
// NVIDIA's tree, a helper left in the submitter's other implementation folder, a name built from a
// variable the site sets). What stands in, as a note; "" when nothing does.
std::string stand_in_for(ImportOptions& o, const MissingSourceError& e) {
  const fs::path folder = fs::absolute(o.config).lexically_normal().parent_path();
  const std::string name = fs::path(e.missing).filename().string();
  // 1. an unset variable in the helper's name: the <SYSTEM> of the config's file name (config_<SYSTEM>_NxGxBxA)
  static const std::regex var(R"(\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?)");
  const std::string word = e.command.substr(e.command.find_last_of(" /") + 1);
  const auto n = parse_mlperf_name(fs::path(o.config).filename().string());
  if (n && n->system.starts_with("config_"))
    for (std::sregex_iterator it(word.begin(), word.end(), var), end; it != end; ++it) {
      const std::string v = (*it)[1];
      if (o.bash.env.count(v)) continue;
      const std::string system = n->system.substr(7);
      const std::string file = std::regex_replace(word, std::regex("\\$\\{?" + v + "\\}?"), system);
      if (!fs::is_regular_file(folder / file)) continue;
      o.bash.env[v] = system;
      return v + " is unset and names the helper (" + word + "): " + v + "=" + system +
             ", the system of the config's file name (--env " + v + "=... to choose)";
    }
  // 2. the same file in another implementation folder of the submitter
  std::error_code ec;
  std::vector<fs::path> found;
  for (const fs::directory_entry& d : fs::directory_iterator(folder.parent_path(), ec))
    if (d.is_directory() && d.path() != folder && fs::is_regular_file(d.path() / name)) found.push_back(d.path() / name);
  std::sort(found.begin(), found.end());
  if (!found.empty()) {
    o.bash.stand_ins[name] = read_file(found.front().string());
    return name + " is not beside the config: " + found.front().string() + " stands in (the same submitter's other implementation)";
  }
  // 3. config_<SYSTEM>_common.sh of hardware a shipped base describes: the base's node
  static const std::regex common(R"(^config_(.+)_common\.sh$)");
  std::smatch m;
  if (std::regex_match(name, m, common))
    if (const SystemBase* base = find_system_base(m[1])) {
      const NodeLayout l = plan_node_layout(Config::load((fs::path(o.systems_dir) / base->file).string()));
      const auto& t = l.topology;
      const int ht = t.cores > 0 ? t.pus / t.cores : 1, per_socket = t.packages > 0 ? t.cores / t.packages : t.cores;
      o.bash.stand_ins[name] = "export DGXNGPU=" + std::to_string(l.gpus) + " DGXNSOCKET=" + std::to_string(t.packages) +
                               " DGXSOCKETCORES=" + std::to_string(per_socket) + " DGXHT=" + std::to_string(ht) + "\n";
      return name + " is not beside the config (its repository lacks it): the node of the shipped base " + base->file +
             " stands in (DGXNGPU=" + std::to_string(l.gpus) + " DGXNSOCKET=" + std::to_string(t.packages) + " DGXSOCKETCORES=" +
             std::to_string(per_socket) + " DGXHT=" + std::to_string(ht) + "); put the implementation's own beside it to use that";
  }
  return "";
}

}  // namespace

std::string default_launcher_script(const ImportOptions& o) {
  if (!o.launcher_script.empty()) return o.launcher_script;
  fs::path p = fs::path(o.config).parent_path() / "run_multinode.sh";
  return fs::exists(p) ? p.string() : "";
}

// bash_eval, with a stand-in for each helper the config's folder lacks (stand_in_for); the error of one
// nothing stands in for names the helpers the folder has.
BashEvalResult source_config(ImportOptions& o, std::vector<std::string>& notes) {
  for (int attempt = 0;; ++attempt) {
    try {
      return bash_eval(o.config, o.bash);
    } catch (const MissingSourceError& e) {
      const std::string fix = attempt < 4 ? stand_in_for(o, e) : "";
      if (!fix.empty()) {
        notes.push_back(fix);
        continue;
      }
      std::vector<std::string> helpers;
      std::error_code ec;
      for (const fs::directory_entry& d : fs::directory_iterator(fs::absolute(o.config).parent_path(), ec))
        if (d.path().extension() == ".sh" && d.path().filename() != fs::path(o.config).filename()) helpers.push_back(d.path().filename().string());
      const std::string near = closest(fs::path(e.missing).filename().string(), helpers);
      throw UserError(e.loc, "", e.message + "; the config's folder lacks the file it sources" +
                                     (near.empty() ? "" : " (the folder has " + near + ")") +
                                     ": put it beside the config, or give the variables it sets with --env NAME=VALUE or --source-first FILE");
    }
  }
}

// A submitter's own prefix for NVIDIA's DGX* variables (Fujitsu v1.1: PGNNODES, PGNGPU, PGSYSTEM, read by
// its run.sub and run_and_time.sh alike): taken as the DGX* ones when the config has no DGXNNODES/DGXNGPU.
std::string alias_dgx_names(std::map<std::string, std::string>& vars) {
  if (vars.count("DGXNNODES") || vars.count("DGXNGPU")) return "";
  for (const auto& [k, v] : vars) {
    if (k.size() <= 4 || k.compare(k.size() - 4, 4, "NGPU") != 0) continue;
    const std::string prefix = k.substr(0, k.size() - 4);
    if (prefix == "DGX" || !vars.count(prefix + "NNODES")) continue;
    std::string names;
    for (const char* tail : {"NNODES", "NGPU", "SYSTEM", "NSOCKET", "SOCKETCORES", "HT"})
      if (vars.count(prefix + tail) && !vars.count(std::string("DGX") + tail)) {
        vars[std::string("DGX") + tail] = vars.at(prefix + tail);
        names += (names.empty() ? "" : ", ") + prefix + tail;
      }
    return names + ": this submitter's names for NVIDIA's DGX* variables, read as those";
  }
  return "";
}

}  // namespace bert::harness
