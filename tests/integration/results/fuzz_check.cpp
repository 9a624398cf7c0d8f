// libFuzzer target: any bytes through the log parser, the compliance engine (every ruleset), the RCP
// reader and the JSON reader/writer. Nothing may crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "results/check.h"
#include "results/log_parser.h"
#include "results/mllog/pyjson.h"
#include "results/rcp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto rulesets = bert::results::supported_rulesets();
  const uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  bert::results::CheckOptions opts;
  opts.ruleset = rulesets[mode % rulesets.size()];
  opts.werror = (mode & 0x10) != 0;
  opts.quiet = (mode & 0x20) != 0;
  auto verdict = bert::results::check_log_text(text, opts, "fuzz");
  (void)bert::results::format_report(verdict);
  (void)bert::results::to_json(verdict).dump();

  (void)bert::results::rcp::read_submission(text, (mode & 0x40) != 0);
  auto parsed = bert::results::pyjson::loads(text);
  if (parsed.ok) (void)bert::results::pyjson::dumps_pretty(parsed.value);
  return 0;
}
