#include "harness/history/history_cli.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/cli_parse.h"
#include "common/user_error.h"
#include "harness/history/compare.h"
#include "harness/history/history_view.h"
#include "harness/history/results_db.h"
#include "harness/history/set_source.h"
#include "harness/run/output_tree.h"
#include "results/score.h"

namespace bert::harness::history {
namespace fs = std::filesystem;

namespace {

struct HistoryCli : CliSubcommand<HistoryCli> {
  CLI::App* compare = nullptr;
  std::string db, system, html;
  bool json = false;
  int limit = 0;
  std::string a, b;
  bool compare_json = false;
  double alpha = 0.05;
};

bool is_id(const std::string& s) {
  const std::string d = !s.empty() && s[0] == '#' ? s.substr(1) : s;
  return !d.empty() && d.size() < 18 && d.find_first_not_of("0123456789") == std::string::npos;
}

// A set named on the command line: an output folder (or results folder), else a database id.
SetRecord resolve_set(const std::string& ref, const std::string& db_path) {
  if (fs::exists(ref)) return record_from_folder(ref, results::kDefaultRuleset);
  if (!is_id(ref))
    throw UserError(ref + ": neither a folder (a set's output folder or a folder of result_*.txt) nor a results database id");
  const int64_t id = std::stoll(ref[0] == '#' ? ref.substr(1) : ref);
  ResultsDb db = ResultsDb::open(db_path, false);
  std::optional<SetRecord> s = db.set(id);
  if (!s) throw UserError(db_path + ": no set #" + std::to_string(id) + " (harness history lists them)");
  return *s;
}

int history_main(HistoryCli& c, const std::map<std::string, std::string>& env) {
  const std::string path = results_db_path(c.db, env);
  std::vector<SetRecord> sets;
  if (fs::exists(path)) sets = ResultsDb::open(path, false).sets({c.system, c.limit});
  if (!c.html.empty()) {
    write_file_atomic(c.html, history_html(sets, path));
    std::cerr << "history: " << sets.size() << " set(s) in " << c.html << "\n";
  }
  if (c.json) std::cout << history_json(sets, path).dump(2) << "\n";
  else if (c.html.empty()) {
    std::cout << "results database: " << path << (fs::exists(path) ? "" : " (none yet)") << "\n" << format_history(sets);
  }
  return 0;
}

int compare_main(HistoryCli& c, const std::map<std::string, std::string>& env) {
  const std::string path = results_db_path(c.db, env);
  const SetRecord a = resolve_set(c.a, path), b = resolve_set(c.b, path);
  const Comparison cmp = compare_sets(a, b, c.alpha);
  std::cout << (c.compare_json ? to_json(cmp).dump(2) + "\n" : format_comparison(cmp));
  return 0;
}

}  // namespace

void add_run_options(CLI::App& run, RunRecordArgs& a) {
  run.add_option("--db", a.db, "results database the set is recorded in (default: $BERT_RESULTS_DB, else "
                               "$XDG_DATA_HOME/bert-harness/results.db)");
  run.add_flag("--fail-on-reference", a.fail_on_reference,
               "exit 3 when the set completed but missed one of the system's references: (or could not measure it)");
}

int run_exit_code(int rc, const RunRecordArgs& a, const SetEndOutcome& o) {
  return rc == 0 && a.fail_on_reference && o.reference_missed ? 3 : rc;
}

void register_history_commands(CLI::App& app) {
  HistoryCli& c = HistoryCli::instance();
  c.cmd = app.add_subcommand("history", "the recorded sets, newest first (results database)");
  c.cmd->add_option("--system", c.system, "only this system (its system.name)");
  c.cmd->add_flag("--json", c.json, "machine-readable: every set with its runs");
  c.cmd->add_option("--html", c.html, "write one self-contained page with each system's trend to FILE");
  c.cmd->add_option("--limit", c.limit, "at most N sets")->check(CLI::NonNegativeNumber);
  c.cmd->add_option("--db", c.db, "results database (default: $BERT_RESULTS_DB, else $XDG_DATA_HOME/bert-harness/results.db)");
  c.compare = app.add_subcommand("compare", "two sets side by side: each figure's spread and whether they differ beyond the noise");
  c.compare->add_option("A", c.a, "a set's output folder, a folder of result_*.txt, or a database id")->required();
  c.compare->add_option("B", c.b, "the set to compare with A (same forms)")->required();
  c.compare->add_flag("--json", c.compare_json, "machine-readable");
  c.compare->add_option("--alpha", c.alpha, "significance level of the Mann-Whitney U test (default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  c.compare->add_option("--db", c.db, "results database for ids (default: as harness history)");
}

int run_history_if_parsed(const std::map<std::string, std::string>& env) {
  HistoryCli& c = HistoryCli::instance();
  const bool history = c.given(), compare = c.compare && c.compare->parsed();
  if (!history && !compare) return -1;
  const char* name = history ? "harness history" : "harness compare";
  try {
    return history ? history_main(c, env) : compare_main(c, env);
  } catch (const UserError& e) {
    std::cerr << name << ": " << e.what() << "\n";
  } catch (const std::exception& e) {  // the database: one line with the path
    std::cerr << name << ": results database " << results_db_path(c.db, env) << ": " << e.what() << "\n";
  }
  return 2;
}

results::ScoreExtension score_record_extension(const std::map<std::string, std::string>& env) {
  struct Args {
    bool record = false;
    std::string db;
  };
  auto a = std::make_shared<Args>();
  results::ScoreExtension ext;
  ext.add_options = [a](CLI::App& score) {
    score.add_flag("--record", a->record,
                   "record the scored results in the results database (results the harness did not run, e.g. a submission's)");
    score.add_option("--db", a->db, "results database for --record (default: $BERT_RESULTS_DB, else $XDG_DATA_HOME/bert-harness/results.db)");
  };
  ext.after_score = [a, env](const std::string& dir, const results::ScoreResult& r) {
    if (!a->record) return 0;
    const std::string path = results_db_path(a->db, env);
    try {
      // A harness set's results/<system>/bert: recorded as its set (plan, state); anyone else's: as scored.
      const SetRecord rec = harness_set_root(dir).empty() ? record_from_results(dir, r) : record_from_folder(dir, results::kDefaultRuleset);
      const int64_t id = ResultsDb::open(path, true).record(rec);
      std::cerr << "recorded as set #" << id << " (" << rec.system_name << ", " << rec.runs.size() << " runs) in " << path << "\n";
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "harness score: results database " << path << ": " << e.what() << "; not recorded\n";
      return 2;
    }
  };
  return ext;
}

}  // namespace bert::harness::history
