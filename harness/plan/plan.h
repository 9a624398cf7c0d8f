// The Plan: everything `harness run` will do, resolved from a system YAML before anything runs. Its
// four parts: where the ranks run (nodes, ranks, their binding and environment), what runs (the
// commands: setup, submit, per-node prefix, cache clear, the trainer, the launch), the experiments
// (NEXP, seeds, walltimes, output directory), and what the ranks read (the trainer's run config, the
// files written before the first experiment, the MLPerf systems JSON).
// Built by harness/plan (producer), printed by --dry-run, executed by harness/run (consumer), written
// as plan.json (one member table per struct in plan.cpp; the nodes' in binding/plan_nodes.cpp) and read
// back by `bind --plan` (binding/, through the same nodes' tables) for the rank's CPU/memory binding and
// by `harness run --resume`.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binding/binding.h"
#include "binding/plan_nodes.h"
#include "harness/config/settings.h"
#include "harness/plan/probe_projection.h"
#include "harness/plan/seeds.h"
#include "power/monitor_config.h"

namespace bert::harness {

using json = nlohmann::ordered_json;

// One command as an argv vector; shell() renders it with POSIX quoting for display and scripts.
struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // extra environment for this command only
  std::string creates;                     // setup steps: run only when this path does not exist yet
  std::string cwd = {};                    // working directory ("" = the executor's)
  std::string shell() const;               // env assignments + argv, each word POSIX-quoted
};

// One word for a POSIX shell: unchanged when it holds only safe characters, else in single quotes.
std::string shell_quote(const std::string& s);

// Where the ranks run: plan.json's `nodes`, one JSON form shared with `bind` (binding/plan_nodes.h).
using binding::NodePlan;
using binding::RankPlan;

struct ExperimentPlan {
  int nexp = 1;
  CachePolicy cache_clear = CachePolicy::BestEffort;
  bool cache_clear_sudo = false;
  SeedPolicy seed_policy;                  // plan.json: its word, "random" | "fixed:<n>" | "sequence:<base>"
  std::vector<uint64_t> seeds;             // one per experiment, resolved up front and recorded
  std::string seeds_recorded_in;           // the state.json the seeds came from (--resume); "" = this plan's
  std::string run_walltime;                // per-experiment watchdog (Slurm time), "" = none
  std::string job_walltime;                // sbatch --time of the whole set, "" = none
  std::string walltime_derived;            // "run" | "job" | "": which one harness/plan/walltime.h derived
  std::string output_dir;                  // root of logs/, results/, summary.md
  std::string ruleset = "5.0.0";
  Division division = Division::Closed;
};

// How ranks are bound, as resolved (binding.unit auto -> gpu or socket).
struct BindingSummary {
  std::string cpu = "exclusive";           // binding.cpu
  std::string mem = "node";                // binding.mem
  std::string unit = "gpu";                // gpu | socket | numa
  BindingApply apply = BindingApply::Bind; // binding.apply
  std::string nic = "auto";                // binding.nic: auto | none | map
};

struct ContainerPlan {
  std::string runtime;                     // container/ runtime name ("" = bare metal)
  std::string image;
};

// The program every rank runs (trainer:); Plan::trainer is its command, Plan::launch starts it.
struct TrainerPlan {
  TrainerKind kind = TrainerKind::Builtin;
  std::string profile;                     // external: its trainer profile (harness/plan/trainer_profiles.cpp)
  std::string seed_env;                    // external: set to the experiment's seed in every rank's environment
  std::string experiment_env;              // external: set to the experiment index 1..NEXP
  LogSource log_source = LogSource::Rank0Stdout;
  std::string log_file;                    // log_source file: relative to output_dir, {i} = experiment index
};

// One acceptance reference of the system (references.<figure>: harness/config/reference_figures.h).
struct ReferenceTarget {
  std::string figure;                      // time_to_train_min | samples_per_s | energy_j
  double target = 0;
  double tolerance = 0.05;                 // a fraction of the target
};

// The source tree the harness was built from (cmake/source_commit.cmake): what `harness package` snapshots.
struct SourceInfo {
  std::string commit;                      // "" = not built from a git checkout
  bool dirty = false;                      // tracked files differed from the commit at build time
  std::string dir;                         // the checkout it was built from
};

// power: (power/README.md): a monitor on every node for every run, the trainer's power window, the
// interconnect's estimate, the GPU clock lock. source "" = no power measurement.
struct PowerPlan {
  std::string source;                      // ipmi | redfish | command | nvml; "" = off
  double interval_s = 1;                   // between readings
  power::MeasurementType measurement_type = power::MeasurementType::AC;
  double conversion_eff = 1;               // what conversion_eff says
  bool conversion_eff_given = false;       // false: the schema's 1.0, no documented PSU efficiency
  bool node_level = true;                  // false: nvml, the GPUs' sum only
  json monitor_config;                     // power-monitor's config (power/monitor_config.h); never a secret
  std::string monitor_config_file;         // where the executor writes it
  Command monitor;                         // on every node beside the step (the launcher's beside_step_prefix +
                                           // power-monitor --config F); the executor adds --out-dir, --stop-file
  int min_readings = 60;                   // MLPerf: at least this many readings a run
  double window_s = 0;                     // the trainer's run.power_window_s (seconds after run_start)
  int switches = 0;                        // interconnect: one sw_<k>.txt each
  double switch_watts = 0;                 // each one's estimate: rated watts x share
  int gpu_clock_mhz = 0;                   // 0 = clocks left alone
  Command clock_lock;                      // per node, before the first experiment (nvidia-smi -lgc)
  Command clock_reset;                     // per node, after the last (nvidia-smi -rgc)
};

struct Plan {
  std::string system_file;                 // systems/X.yaml as given
  std::string config_name;                 // MLPerf config name, e.g. DGXA100_1x8x56x1
  std::string system_name;                 // MLPerf system_desc_id for results/<system>/
  std::string launcher;                    // a harness/launch launcher name: local | srun | mpirun
  std::string mpi;                         // the PMI/MPI plugin type of the launcher's step (srun --mpi; "" = none)
  int num_nodes = 1;
  int ranks_per_node = 1;
  int world_size = 1;
  std::vector<NodePlan> nodes;
  std::map<std::string, std::string> env;  // job-wide env (NCCL_*, extra env from the YAML)
  BindingSummary binding;
  ContainerPlan container;
  ExperimentPlan experiment;
  double target_accuracy = 0.72;           // masked-LM accuracy that ends a run (progress, plots)
  std::string rcp;                         // closed division: the RCP the global batch meets, in words ("" = open)
  std::string rendezvous_dir;              // the ranks' file rendezvous (local launcher; "" = none), emptied per run

  Command submit;                          // how the set is queued (srun: sbatch --nodes --time=<job walltime>
                                           // slurm/run.sub X); argv empty = started directly
  std::vector<Command> setup;              // once per job (synthetic data, container import), may be empty
  Command per_node;                        // the launcher's prefix running one task on every node (argv empty:
                                           // here), with the environment the launcher gets
  Command cache_clear;                     // once per experiment: per_node + `sh -c <drop caches>`
  Command trainer;                         // what every rank runs: bind --plan P -- trainer --config R, or
                                           // an external trainer's argv with its environment and cwd
  TrainerPlan trainer_run;                 // kind, profile, per-experiment variables, log source
  Command launch;                          // once per experiment: launcher step + container + trainer
                                           // (launcher that starts no ranks itself: started once per rank
                                           // with RankPlan::env)
  std::string host_bind;                   // `bind` on the nodes' host, for the preflight's topology comparison
                                           // ("" = not compared: topology.compare false)
  bool topology_assumed = false;           // topology.assumed: nodes' topology is an assumption (a config's
                                           // variables), not a description; the preflight compares GPU counts only
  std::map<std::string, std::string> data_paths;  // key (benchmark.data.train_dir, ...) -> host path every node
                                           // must read before the first run (the preflight checks them)
  std::map<std::string, std::string> files;  // path -> content the executor writes before the first experiment
                                           // (an Open MPI rankfile for binding.apply launcher)
  std::string plan_file;                   // where launch's `bind --plan` reads this plan (executor writes it)
  std::string run_config_file;             // where launch's `trainer --config` reads trainer_config; the
                                           // executor writes it before each experiment with run.seed = seeds[i]
  json trainer_config;                     // resolved trainer run config (trainer/run_config_keys.h names)
  std::string trainer_program;             // the trainer binary every rank runs (in the container, if any)
  std::string trainer_status;              // whether that trainer's backend was verified, in words (dry-run)
  json system_json;                        // MLPerf systems/<system>.json content
  std::vector<std::string> warnings;       // e.g. file name disagrees with content
  SourceInfo source;                       // this harness's build (BuildOptions::source)
  std::optional<ProbeProjection> probe;    // the last `harness probe` of this system (its output directory's)
  std::string probe_file;                  // where it was read ("" = none)
  std::vector<std::string> excluded;       // nodes the set goes on without (harness run --exclude)
  std::vector<std::string> sets;           // the --set lines it was made with (--resume --exclude re-makes it)
  std::vector<ReferenceTarget> references; // the system's references: given, in reference_figures.h's order
  PowerPlan power;                         // power measurement (source "" = none)

  json to_json() const;
  static Plan from_json(const json& j);    // throws nlohmann::json::exception for a missing or mistyped field
};

}  // namespace bert::harness
