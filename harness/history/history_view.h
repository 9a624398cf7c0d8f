// `harness history`: the recorded sets, newest first, as a table, as JSON, or as one HTML page with
// each system's trend (history --html FILE).
#pragma once
#include <string>
#include <vector>

#include "harness/history/set_record.h"

namespace bert::harness::history {

std::string format_history(const std::vector<SetRecord>& sets);
ojson history_json(const std::vector<SetRecord>& sets, const std::string& db_path);
std::string history_html(const std::vector<SetRecord>& sets, const std::string& db_path);

// "met 2/3" or "-" (no references)
std::string references_summary(const SetRecord& s);

}  // namespace bert::harness::history
