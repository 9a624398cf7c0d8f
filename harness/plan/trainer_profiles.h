// Trainer profiles: what an implementation the harness does not build expects of its ranks, as data
// (one row per implementation in trainer_profiles.cpp): the program and its working directory, where
// a container must mount the data, checkpoint and results, the environment names of those paths, of
// the seed and of the experiment index, and the variables it reads its hyperparameters from (each the
// value of one system key). `trainer.kind: external` runs a profile; `harness import` reads a
// config_*.sh through the same variable rows, so the two directions cannot disagree.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace bert::harness {

// A path the harness provides, as the implementation names and mounts it.
struct ProfilePath {
  std::string env;    // variable holding the path as the rank sees it ("" = not passed)
  std::string mount;  // where a container sees it
};

// One variable the implementation reads, and the system key whose value it is.
struct ProfileVariable {
  std::string name;            // e.g. BATCHSIZE
  std::string system_key;      // e.g. benchmark.batch_size
  std::string times_key;       // "" or a key the value is multiplied by (BATCHSIZE = batch x accumulation)
  bool required = false;       // passed even when the system leaves the key at its default
};

// A flag of the implementation's own command line that a config may add in its variable of extra
// arguments (NVIDIA's EXTRA_PARAMS, which run_and_time.sh appends last, so it overrides the values the
// variables gave): the system key it sets, from its value (--name=V or --name V) or, for a switch, a
// fixed value. Every other flag is the implementation's business and reaches it verbatim.
struct ProfileFlag {
  std::string flag;          // e.g. --eval_batch_size
  std::string system_key;    // e.g. benchmark.eval_batch_size
  std::string switch_value;  // a switch (no value of its own) sets the key to this; "" = the flag takes a value
};

struct TrainerProfile {
  std::string name;
  std::string doc;
  std::vector<std::string> argv;      // default trainer.argv
  std::string workdir;                // default trainer.workdir
  ProfilePath train, eval, checkpoint, results;
  std::string checkpoint_file;        // the file the implementation opens in the checkpoint directory
  std::string seed_env = "SEED";
  std::string experiment_env = "EXPERIMENT_INDEX";  // 1..NEXP
  std::string nexp_env = "NEXP";
  std::vector<std::string> master_addr_env;        // variables given the rendezvous host (when known)
  std::string master_port_env;                     // ... and port
  std::vector<std::pair<std::string, std::string>> env;  // fixed environment (before trainer.env)
  std::vector<ProfileVariable> variables;
  std::string extra_args_env;                      // the variable of extra command-line flags ("" = none)
  std::vector<ProfileFlag> flags;                  // the flags in it the harness must know
};

// The profile of this name; nullptr when there is none.
const TrainerProfile* find_trainer_profile(std::string_view name);
std::vector<std::string> trainer_profile_names();

}  // namespace bert::harness
