// Compliance checking of MLPerf Training BERT logs, with the verdicts of mlcommons/logging's
// compliance checker (rulesets 3.1.0, 4.0.0, 4.1.0, 5.0.0; closed and open division), and the
// BERT part of its package checker.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/user_error.h"
#include "results/mllog/pyjson.h"
#include "results/power.h"

namespace bert::results {

// A mistake the user made (missing file, unknown ruleset, not a results directory) is a bert::UserError:
// exit code 2.

inline constexpr const char* kDefaultRuleset = "5.0.0";
std::vector<std::string> supported_rulesets();  // {"3.1.0", "4.0.0", "4.1.0", "5.0.0"}

struct CheckOptions {
  std::string ruleset = kDefaultRuleset;
  bool werror = false;  // warnings (e.g. equal EXACTLY_ONE duplicates) fail the log
  bool quiet = false;   // drop warnings
};

struct Message {
  std::string key;   // the log key the message is filed under; empty for unkeyed messages
  std::string text;  // the official message text (multi-line for CHECK failures)
};

struct LogVerdict {
  std::string path;
  bool passed = false;
  std::vector<std::string> configs;       // scopes run, e.g. "training_5.0.0/common.yaml"
  std::vector<Message> warnings;          // never fail the log (unless werror)
  std::vector<Message> failures;          // keyed first (insertion order), then unkeyed
  std::vector<std::string> parse_errors;  // "<line>\n   ^^  <error>" per bad MLLOG line
  // Set where the official checker would stop with a Python exception (exit 1, no verdict line):
  // we report FAIL with this reason instead.
  std::string checker_error;
  size_t mllog_lines = 0;
};

// Checks one log's bytes (latin-1; \n, \r\n and \r end lines). `path` is only used in messages.
LogVerdict check_log_text(std::string_view bytes, const CheckOptions& opts, std::string path = "");
// Reads and checks a file; throws UserError when it cannot be read or the ruleset is unknown.
LogVerdict check_log_file(const std::filesystem::path& file, const CheckOptions& opts);

// The official report: INFO lines, the WARNING block of messages, SUCCESS or FAILED.
std::string format_report(const LogVerdict& v);
json to_json(const LogVerdict& v);

// Every result_*.txt in `dir` (in run order: result_2 before result_10; no recursion). Throws UserError if none.
// With a power/ folder, its logs' checks too (results/power.h).
struct DirVerdict {
  std::string dir;
  std::vector<LogVerdict> logs;
  std::vector<PowerFinding> power;  // empty without a power/ folder
  bool all_passed() const;          // every log passed and no power finding is an error
};
DirVerdict check_results_dir(const std::filesystem::path& dir, const CheckOptions& opts);

// Package checks for BERT on a submitter folder ORG/ {systems/*.json, results/<system>/bert/}.
struct PackageOptions {
  std::string ruleset = kDefaultRuleset;
  bool rcp_bypass = false;
  bool seed_checker_bypass = false;
  bool rcp_bert_train_samples = false;
  bool werror = false;  // passed to the log checker, as the package checker passes its --werror
};
struct PackageVerdict {
  std::string org_dir;
  bool passed = false;
  std::vector<std::string> errors;    // each makes the package fail
  std::vector<std::string> warnings;  // informational (e.g. one non-compliant run accepted)
  std::vector<std::string> info;      // what was checked, in order
};
PackageVerdict check_package(const std::filesystem::path& org_dir, const PackageOptions& opts);
// The fields every systems/<system>.json must have (the package checker's list).
const std::vector<std::string>& required_system_fields();
std::string format_report(const PackageVerdict& v);
json to_json(const PackageVerdict& v);

}  // namespace bert::results
