// The harness's own word-valued settings as enums, one table each (common/enum_names.h): the schema's
// choices (schema.cpp), the Plan's typed fields and plan.json's words come from these rows. The
// trainer's (run.backend) are in trainer/run_config.h.
#pragma once
#include <string>

#include "common/division.h"
#include "common/enum_names.h"
#include "harness/config/config.h"

namespace bert::harness {

// binding.apply: who applies each rank's binding.
enum class BindingApply { Bind, Launcher, Trainer, Runtime };
inline constexpr EnumNames<BindingApply, 4> kBindingApplyNames{{{BindingApply::Bind, "bind"},
                                                                {BindingApply::Launcher, "launcher"},
                                                                {BindingApply::Trainer, "trainer"},
                                                                {BindingApply::Runtime, "runtime"}}};

// trainer.kind: our trainer, or an implementation of its own (trainer.argv).
enum class TrainerKind { Builtin, External };
inline constexpr EnumNames<TrainerKind, 2> kTrainerKindNames{
    {{TrainerKind::Builtin, "builtin"}, {TrainerKind::External, "external"}}};

// trainer.log.source: where a run's MLPerf log comes from.
enum class LogSource { Rank0Stdout, File };
inline constexpr EnumNames<LogSource, 2> kLogSourceNames{{{LogSource::Rank0Stdout, "rank0-stdout"}, {LogSource::File, "file"}}};

// launcher.type: how ranks are started; each word is one launcher type of harness/launch/ (its name()).
enum class LauncherType { Local, Srun, Mpirun };
inline constexpr EnumNames<LauncherType, 3> kLauncherTypeNames{
    {{LauncherType::Local, "local"}, {LauncherType::Srun, "srun"}, {LauncherType::Mpirun, "mpirun"}}};

// experiment.division: common/division.h (the results read it from logs too).
using bert::Division;
using bert::kDivisionNames;

// experiment.cache_clear: page-cache clearing before each run.
enum class CachePolicy { Required, BestEffort, Off };
inline constexpr EnumNames<CachePolicy, 3> kCachePolicyNames{
    {{CachePolicy::Required, "required"}, {CachePolicy::BestEffort, "best-effort"}, {CachePolicy::Off, "off"}}};

// A validated config's value of an enum setting (the schema has checked the word; a word outside the
// table is the schema and the table disagreeing: a failure at the key).
template <typename E, std::size_t N>
E setting(const Config& cfg, const std::string& path, const EnumNames<E, N>& names) {
  if (auto v = parse_enum(cfg.str(path), names)) return *v;
  cfg.fail(path, "'" + cfg.str(path) + "' is not one of the setting's words");
}

}  // namespace bert::harness
