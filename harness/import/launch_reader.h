// Which program an imported config's implementation runs, read from the files beside the config: the
// training srun of run.sub (NVIDIA's lineage: once per GPU, `slurm2pytorch ./run_and_time.sh` from v3.0,
// `run_and_time.sh` or `/bm_utils/run_and_time.sh` before, with or without --mpi), or a run_and_time.sh
// that starts its ranks itself (PaddlePaddle's orterun, torch.distributed's launcher), or Samsung's
// run_multinode.sh (ssh + bind_launch). Only a per-rank program can run as an external trainer; the
// others' hyperparameters run on the builtin trainer. Guessed from the variables when no file says.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace bert::harness {

struct LaunchChoice {
  std::string profile;            // whose variable names the config uses (trainer_profiles.cpp)
  bool per_rank = false;          // the implementation's program runs once per rank: trainer.kind external
  std::vector<std::string> argv;  // per_rank: what every rank runs, as run.sub starts it (empty = the profile's)
  std::string mpi;                // run.sub's srun --mpi (pmix, pmi2, none; "" = not read from run.sub)
  std::string why;                // for the import's table: which file and line said so
  bool guessed = false;           // no file said: chosen from the variables alone
};

// `forced_profile` ("" = none) is --profile. Throws UserError for an unknown forced profile.
LaunchChoice read_launch(const std::string& config, const std::map<std::string, std::string>& vars, const std::string& forced_profile);

}  // namespace bert::harness
