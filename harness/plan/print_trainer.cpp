#include "harness/plan/print_trainer.h"

#include <fmt/format.h>

namespace bert::harness {

std::string trainer_dry_run_lines(const Plan& p) {
  std::string out;
  const TrainerPlan& t = p.trainer_run;
  if (t.kind == TrainerKind::External) {
    out += fmt::format("trainer     external, profile {}, log from {}\n", t.profile, t.log_source == LogSource::File ? t.log_file : enum_name(t.log_source, kLogSourceNames));
    if (!p.launch.cwd.empty()) out += fmt::format("trainer cwd {}\n", p.launch.cwd);
    out += fmt::format("per run     {}=<the run's seed>, {}=<1..{}>\n", t.seed_env, t.experiment_env, p.experiment.nexp);
    for (const auto& [k, v] : p.trainer.env) out += fmt::format("trainer env {}={}\n", k, v);
  } else {  // what our trainer reads, as it sees the paths (inside a container: the mounts)
    auto path = [&](const char* group, const char* key) {
      const auto& tc = p.trainer_config;
      const bool set = tc.contains(group) && tc[group].contains(key) && tc[group][key].is_string() && !tc[group][key].get<std::string>().empty();
      return set ? tc[group][key].get<std::string>() : std::string("none");
    };
    out += fmt::format("data        train_dir {}, eval_dir {}, checkpoint {}\n", path("data", "train_dir"), path("data", "eval_file"),
                       path("model", "init_checkpoint"));
  }
  if (p.binding.apply == BindingApply::Launcher)
    out += fmt::format("binding by  the launcher's own mechanism ({}; see the launch line{})\n", p.launcher,
                       p.files.empty() ? "" : " and its files");
  if (p.binding.apply == BindingApply::Runtime)
    out += fmt::format("binding by  the container runtime ({} --cpuset-cpus/--cpuset-mems; see the rank lines)\n", p.container.runtime);
  if (p.binding.apply == BindingApply::Launcher && !p.nodes.empty())
    for (const RankPlan& r : p.nodes.front().ranks)
      if (!r.command_prefix.empty()) {
        Command c;
        c.argv = r.command_prefix;
        out += fmt::format("rank {:<7} {} <launch line>\n", r.local_rank, c.shell());
      }
  if (p.binding.apply == BindingApply::Trainer)
    out += "binding by  the trainer itself (binding.apply trainer): the table below is what it should do, not applied here\n";
  return out;
}

}  // namespace bert::harness
