// A config's walltimes: the per-run one (WALLTIME_RUNANDTIME, v2.x-v4.x WALLTIME_MINUTES) and the job's
// (WALLTIME), which is a fixed time (v1.x: one run's job), arithmetic over NEXP (NVIDIA's and HPE's
// NEXP x WALLTIME_MINUTES + 5) or no limit at all (UNLIMITED). Every row says the value the plan will use.
#include <stdexcept>

#include "harness/import/import_state.h"
#include "harness/plan/walltime.h"

namespace bert::harness {
namespace {

// Does the config's WALLTIME follow NEXP (a job of NEXP runs), or is it one run's job (v1.x: WALLTIME=01:15:00,
// submitted with one experiment per job)? Bash tells: source the config again with another NEXP.
bool walltime_follows_nexp(const ImportOptions& o, const std::map<std::string, std::string>& vars) {
  BashEvalOptions other = o.bash;
  const bool one = other.env["NEXP"] == "1";
  other.env["NEXP"] = std::string(1, one ? '2' : '1');
  BashEvalResult again = bash_eval(o.config, other);
  return !again.exported.count("WALLTIME") || again.exported.at("WALLTIME") != vars.at("WALLTIME");
}

// UNLIMITED, INFINITE, 0 (a time that is no Slurm time: the plan says so at its key).
bool no_limit(const std::string& text) {
  try {
    return parse_walltime_seconds(text) == 0;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

void import_walltimes(ImportState& s) {
  for (const char* var : {"WALLTIME_RUNANDTIME", "WALLTIME_MINUTES"})
    if (s.has(var) && !s.rows.count("WALLTIME_RUNANDTIME")) {
      s.map_to(var, "experiment.run_walltime", s.vars.at(var));
      if (no_limit(s.vars.at(var)))
        s.rows[var].target += " (no per-run limit; unless WALLTIME gives one, the job's is UNLIMITED too: sbatch --time=UNLIMITED)";
    }
  if (!s.has("WALLTIME")) return;
  const std::string walltime = s.vars.at("WALLTIME");
  const std::string nexp = s.o.bash.env.at("NEXP");
  const bool per_run = s.rows.count("WALLTIME_RUNANDTIME") || s.rows.count("WALLTIME_MINUTES");
  if (no_limit(walltime)) {  // UNLIMITED, INFINITE, 0: no limit, and nothing derived
    s.map_to("WALLTIME", "experiment.job_walltime", kNoJobLimit);
    s.rows["WALLTIME"].target += " (no job limit: sbatch --time=UNLIMITED, the partition's longest)";
  } else if (!walltime_follows_nexp(s.o, s.vars)) {
    if (per_run) {
      s.map_to("WALLTIME", "experiment.job_walltime", walltime);
    } else {
      s.map_to("WALLTIME", "experiment.run_walltime", walltime);
      s.rows["WALLTIME"].target += " (it does not change with NEXP: one run's job, as v1.x submitted one experiment per job; "
                                   "the job's limit follows from NEXP)";
    }
  } else if (per_run) {
    // The config's arithmetic gave this NEXP's job limit; the harness's rule gives the plan's, for any NEXP.
    std::string plans = "the harness derives 5 + NEXP x (run + 5) minutes";
    try {
      const Walltimes w = resolve_walltimes(s.value_of("experiment.run_walltime"), "", std::stoi(nexp));
      plans = "the plan's is " + w.job + " = " + walltime_rule(w, std::stoi(nexp));
    } catch (const std::exception&) {  // a per-run limit that is no Slurm time: the plan says so at its key
    }
    s.row("WALLTIME", "ignored", "the config's job limit for NEXP " + nexp + " (it follows NEXP); " + plans +
                                     " (5 around each run for the cache clear and the step; derived again for a later NEXP)");
  } else {
    s.map_to("WALLTIME", "experiment.job_walltime", walltime);
    s.rows["WALLTIME"].target += " (the config's value for NEXP " + nexp + "; the per-run limit follows from it)";
  }
}

}  // namespace bert::harness
