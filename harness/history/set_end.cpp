#include "harness/history/set_end.h"

#include <fmt/format.h>

#include "harness/history/references.h"
#include "harness/history/report_html.h"
#include "harness/history/results_db.h"
#include "harness/history/set_source.h"
#include "harness/run/output_tree.h"

namespace bert::harness::history {

namespace {

std::string references_md(const std::vector<ReferenceVerdict>& refs) {
  std::string md = "\n## References\n\n";
  for (const ReferenceVerdict& v : refs) md += "- " + verdict_line(v) + "\n";
  return md;
}

}  // namespace

SetEndHook make_set_end_hook(SetEndOptions opts, SetEndOutcome* outcome) {
  return [opts = std::move(opts), outcome](const SetEnd& end) {
    SetEndNotes notes;
    SetRecord rec;
    try {
      rec = record_from_run(end.plan, end.state, end.tree.root, end.score);
    } catch (const std::exception& e) {
      notes.console.push_back(std::string("warning: the set's figures could not be read (") + e.what() +
                              "): no references' verdict, report.html or results database record");
      return notes;
    }
    if (!rec.references.empty()) {
      notes.summary_md += references_md(rec.references);
      for (const ReferenceVerdict& v : rec.references) notes.console.push_back(verdict_line(v));
      if (outcome) outcome->reference_missed = any_missed(rec.references);
    }
    notes.summary_md += "\n## Report and results database\n\n";
    const std::string report = end.tree.root + "/report.html";
    try {
      write_file_atomic(report, report_html(rec, &end.plan, end.plan.target_accuracy));
      notes.console.push_back("report: " + report);
      notes.summary_md += "- report: `report.html` (runs, charts, binding map, compliance; self-contained)\n";
    } catch (const std::exception& e) {
      notes.console.push_back(std::string("warning: report.html not written: ") + e.what());
      notes.summary_md += std::string("- report.html not written: ") + e.what() + "\n";
    }
    const std::string path = results_db_path(opts.db_flag, opts.env);
    try {
      ResultsDb db = ResultsDb::open(path, true);
      rec.id = db.record(rec);
      notes.console.push_back(fmt::format("results database: set #{} in {} (harness history, harness compare {} ...)", rec.id, path, rec.id));
      notes.summary_md += fmt::format("- results database: set #{} in `{}`\n", rec.id, path);
    } catch (const std::exception& e) {
      notes.console.push_back(fmt::format("warning: results database {}: {}; this set is not recorded there (its folder {} is complete)",
                                          path, e.what(), end.tree.root));
      notes.summary_md += fmt::format("- not recorded in the results database `{}`: {}\n", path, e.what());
    }
    return notes;
  };
}

}  // namespace bert::harness::history
