#include "harness/plan/external_trainer.h"

namespace bert::harness {
namespace {

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& n : v) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

const TrainerProfile& trainer_profile(const Config& cfg) {
  const std::string name = cfg.str("trainer.profile").empty() ? "generic" : cfg.str("trainer.profile");
  const TrainerProfile* p = find_trainer_profile(name);
  if (!p) cfg.fail("trainer.profile", "'" + name + "' is not a trainer profile (known: " + names(trainer_profile_names()) + ")");
  return *p;
}

TrainerPlan make_trainer_plan(const Config& cfg) {
  TrainerPlan t;
  t.kind = setting(cfg, "trainer.kind", kTrainerKindNames);
  t.log_source = setting(cfg, "trainer.log.source", kLogSourceNames);
  t.log_file = cfg.str("trainer.log.file");
  const bool external = t.kind == TrainerKind::External;
  if (!external) {
    for (const char* key : {"trainer.profile", "trainer.argv", "trainer.workdir", "trainer.env", "trainer.log.source", "trainer.log.file"})
      if (cfg.given(key)) cfg.fail(key, "only for trainer.kind external (the builtin trainer logs to stdout and takes no argv)");
    return t;
  }
  const TrainerProfile& p = trainer_profile(cfg);
  t.profile = p.name;
  t.seed_env = p.seed_env;
  t.experiment_env = p.experiment_env;
  if (cfg.strings("trainer.argv").empty() && p.argv.empty())
    cfg.fail("trainer.argv", "an external trainer needs the program every rank runs (profile " + p.name + " names none)");
  if (t.log_source == LogSource::File && t.log_file.empty()) cfg.fail("trainer.log.file", "trainer.log.source file needs the log's file name");
  if (t.log_source != LogSource::File && !t.log_file.empty()) cfg.fail("trainer.log.file", "only with trainer.log.source file");
  // The implementation's own name for the output directory (its results mount, /results) means the same folder.
  const std::string mount = p.results.mount.empty() ? "" : p.results.mount + "/";
  if (!mount.empty() && t.log_file.rfind(mount, 0) == 0) t.log_file.erase(0, mount.size());
  if (!t.log_file.empty() && (t.log_file.front() == '/' || t.log_file.find("..") != std::string::npos))
    cfg.fail("trainer.log.file", "must be relative to experiment.output_dir" + (mount.empty() ? "" : " (or under " + mount + ", its name in profile " + p.name + ")") +
                                     ", without '..'");
  if (t.log_source == LogSource::File && (t.log_file.empty() || t.log_file.back() == '/'))
    cfg.fail("trainer.log.file", "names a folder, not the log file: add the file name or a pattern such as *.log");
  return t;
}

std::map<std::string, std::string> external_env(const Config& cfg, const TrainerProfile& p, const RankPaths& seen,
                                                const std::map<std::string, std::string>& resolved, int nexp) {
  std::map<std::string, std::string> env(p.env.begin(), p.env.end());
  auto path = [&](const ProfilePath& pp, const std::string& value) {
    if (!pp.env.empty() && !value.empty()) env[pp.env] = value;
  };
  path(p.train, seen.train);
  path(p.eval, seen.eval);
  path(p.checkpoint, seen.checkpoint);
  path(p.results, seen.results);
  auto value = [&](const std::string& key) {
    auto it = resolved.find(key);
    return it != resolved.end() ? it->second : cfg.str(key);
  };
  for (const ProfileVariable& v : p.variables) {
    const bool given = cfg.given(v.system_key) || (!v.times_key.empty() && cfg.given(v.times_key));
    if (!v.required && !given) continue;
    env[v.name] = v.times_key.empty() ? value(v.system_key)
                                      : std::to_string(cfg.integer(v.system_key) * cfg.integer(v.times_key));
  }
  if (!p.nexp_env.empty()) env[p.nexp_env] = std::to_string(nexp);
  for (const auto& [k, v] : cfg.string_map("trainer.env")) env[k] = v;
  return env;
}

}  // namespace bert::harness
