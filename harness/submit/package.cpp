#include "harness/submit/package.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/user_error.h"
#include "harness/plan/plan.h"
#include "harness/run/output_tree.h"
#include "harness/run/run.h"
#include "harness/submit/snapshot.h"
#include "results/result_files.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

struct SetInput {
  std::string dir;
  Plan plan;
  std::string system;                 // results/<system>/
  std::vector<fs::path> results;      // result_*.txt in run order
  std::string systems_json;           // its text
};

SetInput read_set(const std::string& dir) {
  SetInput s;
  s.dir = dir;
  s.plan = load_plan_for_resume(dir);
  const fs::path results = fs::path(dir) / "results";
  std::error_code ec;
  std::vector<fs::path> systems;
  for (const auto& e : fs::directory_iterator(results, ec))
    if (e.is_directory(ec)) systems.push_back(e.path());
  if (systems.size() != 1)
    throw UserError(results.string() + ": expected one system folder (results/<system>/bert/), found " +
                    std::to_string(systems.size()));
  s.system = systems.front().filename().string();
  try {
    s.results = results::result_files(systems.front() / "bert");
  } catch (const UserError& e) {
    throw UserError(std::string(e.what()) + " (a set that produced no result cannot be packaged)");
  }
  const std::string sys_json = (fs::path(dir) / "systems" / (s.system + ".json")).string();
  s.systems_json = read_file(sys_json);
  return s;
}

// The implementation folder's name and what goes in it.
struct Implementation {
  std::string name;
  std::string commit;   // this project at a commit, or
  std::string folder;   // an external implementation's folder
  std::string repo;
};

Implementation implementation_of(const std::vector<SetInput>& sets, const PackageOptions& o, PackageResult& r) {
  const Plan& p = sets.front().plan;
  Implementation impl;
  const bool external = p.trainer_run.kind == TrainerKind::External;
  if (external) {
    impl.name = p.trainer_run.profile.empty() || p.trainer_run.profile == "generic" ? "external" : p.trainer_run.profile;
    impl.folder = o.implementation_dir;
    if (impl.folder.empty()) {
      if (!p.container.image.empty())
        throw UserError(sets.front().dir + ": its external trainer ran inside " + p.container.image +
                        "; give the implementation's folder with --implementation DIR");
      impl.folder = p.launch.cwd.empty() ? fs::path(p.trainer_program).parent_path().string() : p.launch.cwd;
    }
  } else if (!o.implementation_dir.empty()) {
    impl.folder = o.implementation_dir;
    impl.name = "cpp";
  } else {
    const std::string backend = p.trainer_config.contains("run") ? p.trainer_config["run"].value("backend", "") : "";
    impl.name = backend.empty() ? "cpp" : "cpp-" + backend;
    impl.commit = p.source.commit;
    impl.repo = o.source_dir.empty() ? p.source.dir : o.source_dir;
    if (impl.commit.empty())
      throw UserError(Loc{sets.front().dir + "/plan.json"}, "source.commit",
                      "the harness that ran this set was not built from a git checkout; give the code with --implementation DIR");
    for (const SetInput& s : sets) {
      if (s.plan.source.commit != impl.commit)
        throw UserError(Loc{s.dir + "/plan.json"}, "source.commit",
                        "ran from " + (s.plan.source.commit.empty() ? std::string("an unknown commit") : s.plan.source.commit) +
                            ", " + sets.front().dir + " from " + impl.commit + ": one package holds one implementation");
      if (s.plan.source.dirty)
        r.warnings.push_back(s.dir + " ran from a tree with uncommitted changes; the package holds commit " + impl.commit +
                             " without them");
    }
  }
  if (!o.impl.empty()) impl.name = o.impl;
  return impl;
}

json submitter_filled(const std::string& text, const std::string& file, const std::string& org, PackageResult& r) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError(file + ": not a JSON object (the set's MLPerf systems JSON)");
  const std::string submitter = j.value("submitter", "");
  if (submitter.empty()) {
    j["submitter"] = org;
    r.notes.push_back("systems JSON: submitter set to " + org);
  } else if (submitter != org) {
    r.warnings.push_back(file + ": submitter is '" + submitter + "', the package's folder is '" + org + "'");
  }
  return j;
}

}  // namespace

PackageResult make_package(const PackageOptions& o) {
  if (o.sets.empty()) throw UserError("package: give at least one experiment set (an output directory of harness run)");
  if (o.org.empty() || o.org.find('/') != std::string::npos || o.org == "." || o.org == "..")
    throw UserError("--org: '" + o.org + "' is not a folder name (the submitting organization, e.g. Example)");
  std::vector<SetInput> sets;
  for (const std::string& d : o.sets) sets.push_back(read_set(d));
  const SetInput& first = sets.front();
  for (const SetInput& s : sets) {
    if (s.system != first.system)
      throw UserError(s.dir + ": results for system " + s.system + ", " + first.dir + " for " + first.system +
                      ": package one system at a time");
    if (s.plan.experiment.ruleset != first.plan.experiment.ruleset)
      throw UserError(s.dir + ": ruleset " + s.plan.experiment.ruleset + ", " + first.dir + ": " + first.plan.experiment.ruleset);
  }
  PackageResult r;
  const Implementation impl = implementation_of(sets, o, r);
  std::vector<json> descs;
  for (const SetInput& s : sets)
    descs.push_back(submitter_filled(s.systems_json, s.dir + "/systems/" + s.system + ".json", o.org, r));
  for (size_t i = 1; i < descs.size(); ++i)
    if (descs[i] != descs[0])
      throw UserError(sets[i].dir + "/systems/" + first.system + ".json: differs from " + first.dir +
                      "'s: the runs of one package are of one system description");

  const fs::path org = fs::path(o.out) / o.org;
  std::error_code ec;
  if (fs::exists(org, ec)) throw UserError(org.string() + ": already exists; choose another -o or remove it");
  r.org_dir = org.string();
  const fs::path bdir = org / "results" / first.system / "bert";
  fs::create_directories(bdir, ec);
  fs::create_directories(org / "systems", ec);
  if (ec) throw UserError(org.string() + ": cannot create: " + ec.message());
  write_file_atomic((org / "systems" / (first.system + ".json")).string(), descs.front().dump(4) + "\n");
  int n = 0;
  for (const SetInput& s : sets) {
    for (const fs::path& f : s.results) {
      const fs::path to = bdir / ("result_" + std::to_string(n++) + ".txt");
      fs::copy_file(f, to, ec);
      if (ec) throw UserError(f.string() + ": cannot copy to " + to.string() + ": " + ec.message());
      // Its power logs (power/result_<i>/node_<k>.txt, sw_<k>.txt) under the run's new name.
      if (const fs::path power = f.parent_path() / "power" / f.stem(); fs::is_directory(power, ec)) {
        fs::create_directories(bdir / "power", ec);
        fs::copy(power, bdir / "power" / to.stem(), fs::copy_options::recursive, ec);
        if (ec) throw UserError(power.string() + ": cannot copy to " + (bdir / "power" / to.stem()).string() + ": " + ec.message());
      }
    }
    r.notes.push_back(s.dir + ": " + std::to_string(s.results.size()) + " result(s)");
  }
  const fs::path idir = org / "benchmarks" / "bert" / "implementations" / impl.name;
  if (!impl.commit.empty()) {
    snapshot_commit(impl.repo, impl.commit, idir.string());
    r.notes.push_back("implementation " + impl.name + ": " + impl.repo + " at " + impl.commit + " (git archive)");
  } else {
    snapshot_folder(impl.folder, idir.string());
    r.notes.push_back("implementation " + impl.name + ": a copy of " + impl.folder);
  }
  results::PackageOptions po;
  po.ruleset = first.plan.experiment.ruleset;
  r.verdict = results::check_package(org, po);
  return r;
}

}  // namespace bert::harness
