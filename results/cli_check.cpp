// `harness check`: one log, a results directory, or (--package) a submitter folder.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "results/check.h"
#include "results/cli.h"

namespace bert::results {
namespace {

struct CheckArgs {
  std::string path;
  std::string ruleset = kDefaultRuleset;
  bool json_out = false, werror = false, quiet = false, package = false;
  bool rcp_bypass = false, seed_bypass = false, bert_train_samples = false;
};

bool looks_like_submission(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(std::filesystem::path(path) / "results", ec) &&
         std::filesystem::is_directory(std::filesystem::path(path) / "systems", ec);
}

int run_check(const CheckArgs& a) {
  if (a.package || looks_like_submission(a.path)) {
    PackageOptions po;
    po.ruleset = a.ruleset;
    po.rcp_bypass = a.rcp_bypass;
    po.seed_checker_bypass = a.seed_bypass;
    po.rcp_bert_train_samples = a.bert_train_samples;
    po.werror = a.werror;
    PackageVerdict v = check_package(a.path, po);
    if (a.quiet) v.warnings.clear();  // the package's warnings too (they never fail it)
    std::cout << (a.json_out ? to_json(v).dump(2) + "\n" : format_report(v));
    return v.passed ? 0 : 1;
  }
  CheckOptions opts{a.ruleset, a.werror, a.quiet};
  std::error_code ec;
  if (std::filesystem::is_directory(a.path, ec)) {
    DirVerdict d = check_results_dir(a.path, opts);
    json arr = json::array();
    size_t passed = 0;
    for (const auto& l : d.logs) {
      passed += l.passed ? 1 : 0;
      if (a.json_out) arr.push_back(to_json(l));
      else std::cout << format_report(l);
    }
    size_t power_errors = 0;
    json power = json::array();
    for (const PowerFinding& f : d.power) {
      power_errors += f.error ? 1 : 0;
      if (!a.json_out) std::cout << format_finding(f) << "\n";
      power.push_back({{"where", f.where}, {"check", f.check}, {"message", f.text}, {"error", f.error}});
    }
    if (a.json_out) {
      json j = json::object();
      j["dir"] = d.dir;
      j["passed"] = d.all_passed();
      j["logs"] = arr;
      j["power"] = power;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << passed << " of " << d.logs.size() << " logs pass (ruleset " << a.ruleset << ")\n";
      if (has_power_dir(a.path))
        std::cout << "power logs: " << (power_errors ? std::to_string(power_errors) + " error(s)" : std::string("no error")) << "\n";
    }
    return d.all_passed() ? 0 : 1;
  }
  LogVerdict v = check_log_file(a.path, opts);
  std::cout << (a.json_out ? to_json(v).dump(2) + "\n" : format_report(v));
  return v.passed ? 0 : 1;
}

}  // namespace

void end_command(int rc) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (rc != 0) std::exit(rc);
}

void register_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "MLPerf compliance of a BERT log, results dir or submission package");
  cmd->add_option("path", args->path, "log file, results dir (result_*.txt) or submitter dir (systems/, results/)")
      ->required();
  cmd->add_option("--ruleset", args->ruleset, "training ruleset: 3.1.0, 4.0.0, 4.1.0 or 5.0.0")
      ->capture_default_str();
  cmd->add_flag("--json", args->json_out, "machine-readable verdicts");
  cmd->add_flag("--werror", args->werror, "treat warnings as errors");
  cmd->add_flag("--quiet", args->quiet, "suppress warnings (a failing log's messages still print, as the official checker's)");
  cmd->add_flag("--package", args->package, "package checks on PATH (implied when PATH has systems/ and results/)");
  cmd->add_flag("--rcp-bypass", args->rcp_bypass, "with --package: do not fail on the RCP check");
  cmd->add_flag("--seed-checker-bypass", args->seed_bypass, "with --package: skip the seed check");
  cmd->add_flag("--rcp-bert-train-samples", args->bert_train_samples,
                "with --package: RCP uses the train_samples line as samples to converge");
  cmd->footer("Exit codes: 0 every log passes (a package: the package check finds no error); 1 a log fails or the package "
              "check finds an error (each is reported on stdout); 2 bad input: no such path, an unknown --ruleset, an "
              "unreadable file (one line on stderr).");
  cmd->callback([args] {
    int rc = 2;
    try {
      rc = run_check(*args);
    } catch (const UserError& e) {
      std::cerr << "harness check: " << e.what() << "\n";
      rc = 2;
    }
    end_command(rc);
  });
}

}  // namespace bert::results
