// The two walltimes of a set, as Slurm times (sbatch --time): "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds", any field
// allowed past 59 as Slurm allows it (00:70:00 = 70 minutes); 0, UNLIMITED and INFINITE = no limit.
// run: the per-experiment watchdog (NVIDIA's WALLTIME_RUNANDTIME); job: sbatch --time of the whole
// set (NVIDIA's WALLTIME). Either one is derived from the other with NVIDIA's v5.0 rule
// (config_DGXB200_*.sh): job = 5 + NEXP x (run + 5) minutes: 5 minutes per experiment for the cache
// clear and the step start around the trainer, and 5 for the job's setup.
#pragma once
#include <string>

namespace bert::harness {

inline constexpr double kSetupMarginS = 5 * 60;          // once per job
inline constexpr double kPerExperimentMarginS = 5 * 60;  // around each experiment
inline constexpr const char* kNoJobLimit = "UNLIMITED";   // a job given no limit: sbatch --time=UNLIMITED

// Seconds; 0 for "", "0", UNLIMITED, INFINITE, -1 (no limit; the words in any case). Throws std::invalid_argument with the text on
// anything Slurm would refuse.
double parse_walltime_seconds(const std::string& text);
bool is_unlimited_walltime(const std::string& text);
// Whole minutes as "85", else "h:mm:ss" (never the mm:ss form, which reads like hh:mm).
std::string format_walltime(double seconds);

struct Walltimes {
  std::string run, job;  // "" = no limit (job: none given, Slurm's default); job kNoJobLimit = given as no limit
  std::string derived;   // "", "run" or "job": which one the rule gave
  std::string warning;   // both given and the job shorter than the rule asks ("" = fine)
};
// Fills the missing one of run/job (texts as written, "" = not given); a job given as no limit (0, UNLIMITED),
// or not given beside runs given no limit, is kNoJobLimit and derives nothing. Throws std::invalid_argument
// when job leaves no time for NEXP experiments after the margins.
Walltimes resolve_walltimes(const std::string& run, const std::string& job, int nexp);
// How the derived one came about, for the dry-run: "5 + NEXP 10 x (run 8 + 5) minutes" ("" = none derived).
std::string walltime_rule(const Walltimes& w, int nexp);

}  // namespace bert::harness
