#include "harness/import/launch_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "common/user_error.h"
#include "harness/plan/trainer_profiles.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

struct Line {
  int number = 0;  // of its first physical line
  std::string text;
};

// The file's logical lines: backslash continuations joined, comment lines dropped.
std::vector<Line> logical_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Line> out;
  Line cur;
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (cur.text.empty()) cur.number = n;
    const bool more = !l.empty() && l.back() == '\\';
    if (more) l.pop_back();
    cur.text += l + " ";
    if (more) continue;
    const size_t first = cur.text.find_first_not_of(" \t");
    if (first != std::string::npos && cur.text[first] != '#') out.push_back(cur);
    cur = {};
  }
  return out;
}

// The variables' own guess: NVIDIA's names (DGXNGPU, GRADIENT_STEPS) or Samsung's (GRAD_STEPS, EVAL_START).
std::string profile_by_variables(const std::map<std::string, std::string>& vars) {
  if (vars.count("DGXNGPU") || vars.count("DGXNNODES") || vars.count("GRADIENT_STEPS")) return "nvidia-pytorch";
  if (vars.count("GRAD_STEPS") || vars.count("EVAL_START")) return "samsung-pytorch";
  return "nvidia-pytorch";
}

// run.sub's training step: the last srun that starts run_and_time.sh.
bool from_run_sub(const fs::path& run_sub, LaunchChoice& c) {
  static const std::regex program(R"((["']?)(\S*run_and_time\S*\.sh)\1)");
  static const std::regex mpi(R"(--mpi=(\S+))");
  const Line* step = nullptr;
  std::vector<Line> lines = logical_lines(run_sub);
  for (const Line& l : lines)
    if (std::regex_search(l.text, std::regex(R"((^|\s)srun\s)")) && l.text.find("run_and_time") != std::string::npos) step = &l;
  if (!step) return false;
  std::smatch m;
  std::string prog = "./run_and_time.sh";  // the last mention is the program (a mount may name it before)
  for (std::sregex_iterator it(step->text.begin(), step->text.end(), program), end; it != end; ++it) prog = (*it)[2].str();
  if (auto colon = prog.find(':'); colon != std::string::npos) prog.erase(0, colon + 1);
  if (prog.find('/') == std::string::npos) prog = "./" + prog;
  c.argv = step->text.find("slurm2pytorch") != std::string::npos ? std::vector<std::string>{"slurm2pytorch", prog}
                                                                   : std::vector<std::string>{prog};
  std::string how;
  if (std::regex_search(step->text, m, mpi)) {
    std::string v = m[1].str();
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    const size_t dflt = v.find(":-");  // ${SLURM_MPI_TYPE:-pmix}
    c.mpi = dflt != std::string::npos ? v.substr(dflt + 2, v.find('}') - dflt - 2) : v;
    how = "--mpi=" + m[1].str();
  } else {
    c.mpi = "none";  // srun's own default (MpiDefault=none unless the site sets it); run_and_time.sh reads SLURM_* itself
    how = "no --mpi";
  }
  c.per_rank = true;
  c.why = run_sub.filename().string() + ":" + std::to_string(step->number) + " starts `";
  for (size_t i = 0; i < c.argv.size(); ++i) c.why += (i ? " " : "") + c.argv[i];
  c.why += "` once per GPU with srun (" + how + ")";
  return true;
}

// A run_and_time.sh that starts the ranks itself: not a per-rank program.
bool own_launcher(const fs::path& script, LaunchChoice& c) {
  static const std::regex launcher(
      R"((^|[\s/"'=`$(])(orterun|mpirun|torchrun|torch\.distributed\.launch|torch\.distributed\.run|paddle\.distributed\.launch|bind_launch)\b)");
  bool paddle = false;
  const Line* found = nullptr;
  std::string which;
  std::vector<Line> lines = logical_lines(script);
  for (const Line& l : lines) {
    paddle = paddle || l.text.find("paddle") != std::string::npos;
    std::smatch m;
    if (!found && std::regex_search(l.text, m, launcher)) found = &l, which = m[2];
  }
  if (!found) return false;
  for (const Line& l : lines)  // NVIDIA's lineage: one rank per srun task (bindpcie), its own launcher only in docker mode
    if (l.text.find("SLURM_LOCALID") != std::string::npos || l.text.find("bindpcie") != std::string::npos) {
      c.per_rank = true;
      c.guessed = true;
      c.why = script.filename().string() + ":" + std::to_string(l.number) + " runs one rank per srun task (SLURM_LOCALID); no "
              "run.sub beside it says how it is started: as NVIDIA's run.sub starts it";
      return true;
    }
  c.per_rank = false;
  c.why = script.filename().string() + ":" + std::to_string(found->number) + " starts the ranks itself (" + which + ")" +
          (paddle ? ", a PaddlePaddle implementation" : "") + ": no per-rank program for the harness to start; the builtin "
          "trainer runs the config's hyperparameters";
  return true;
}

}  // namespace

LaunchChoice read_launch(const std::string& config, const std::map<std::string, std::string>& vars, const std::string& forced) {
  LaunchChoice c;
  const fs::path folder = fs::absolute(config).parent_path();
  c.profile = profile_by_variables(vars);
  if (!forced.empty()) {
    if (!find_trainer_profile(forced)) throw UserError(Loc{"harness import --profile"}, "", "'" + forced + "' is not a trainer profile");
    c.profile = forced;
    c.per_rank = forced == "nvidia-pytorch";
    c.why = "--profile " + forced;
    if (fs::exists(folder / "run.sub")) {
      LaunchChoice read;
      if (from_run_sub(folder / "run.sub", read) && c.per_rank) c.argv = read.argv, c.mpi = read.mpi, c.why += "; " + read.why;
    }
    return c;
  }
  if (fs::exists(folder / "run.sub") && from_run_sub(folder / "run.sub", c)) {
    c.profile = "nvidia-pytorch";
    return c;
  }
  if (fs::exists(folder / "run_multinode.sh") && own_launcher(folder / "run_multinode.sh", c)) return c;
  if (fs::exists(folder / "run_and_time.sh") && own_launcher(folder / "run_and_time.sh", c)) return c;
  c.guessed = true;
  c.per_rank = c.profile == "nvidia-pytorch";
  c.why = "no run.sub starting run_and_time.sh beside the config: guessed from its variables (" +
          std::string(c.per_rank ? "NVIDIA's names: its run.sub's slurm2pytorch ./run_and_time.sh once per GPU"
                                 : "Samsung's names: the builtin trainer runs its hyperparameters") + ")";
  return c;
}

}  // namespace bert::harness
