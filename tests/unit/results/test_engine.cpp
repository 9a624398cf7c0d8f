#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "results/check.h"
#include "results/mllog/mllog.h"
#include "results/rules.h"
#include "test_log.h"

using namespace bert::results;
using bert::results::test::make_log;

namespace {

bool has_key(const LogVerdict& v, const std::string& key) {
  for (const auto& m : v.failures)
    if (m.key == key) return true;
  return false;
}

}  // namespace

TEST_CASE("every bundled rule file parses, four rulesets with five scopes each") {
  CHECK(supported_rulesets() == std::vector<std::string>{"3.1.0", "4.0.0", "4.1.0", "5.0.0"});
  for (const auto& rs : supported_rulesets())
    for (const char* scope : {"common", "closed_common", "open_common", "closed_bert", "open_bert"}) {
      CAPTURE(rs);
      CAPTURE(scope);
      CHECK(rules::find_scope(rs, scope) != nullptr);
    }
  CHECK(rules::find_scope("5.0.0", "closed_resnet") == nullptr);
  CHECK_THROWS_AS(rules::parse_scope("x.yaml", "keys:\n  - name: a\n    check:\n      - frobnicate: 1\n"),
                  std::runtime_error);
}

TEST_CASE("a writer-made log passes; scopes run in the official order") {
  auto v = check_log_text(make_log(), {});
  INFO(format_report(v));
  CHECK(v.passed);
  CHECK(v.configs == std::vector<std::string>{"training_5.0.0/common.yaml", "training_5.0.0/closed_common.yaml",
                                              "training_5.0.0/closed_bert.yaml"});
  auto open = check_log_text(make_log("", "open"), {});
  CHECK(open.passed);
  CHECK(open.configs.back() == "training_5.0.0/open_bert.yaml");
}

TEST_CASE("4.1.0 needs submission_org and submission_platform, 5.0.0 does not") {
  CheckOptions o;
  o.ruleset = "4.1.0";
  auto v = check_log_text(make_log(), o);
  CHECK_FALSE(v.passed);
  CHECK(has_key(v, "submission_org"));
  CHECK(has_key(v, "submission_platform"));
}

TEST_CASE("init time limit: strict, division-dependent") {
  CHECK(check_log_text(make_log("", "closed", 1799999), {}).passed);
  auto late = check_log_text(make_log("", "closed", 1800000), {});
  CHECK_FALSE(late.passed);
  CHECK(has_key(late, "init_stop"));
  CHECK(check_log_text(make_log("", "open", 1800000), {}).passed);
}

TEST_CASE("missing lines fail with the official REQ messages") {
  auto v = check_log_text(make_log(key::kRunStart), {});
  CHECK_FALSE(v.passed);
  CHECK(has_key(v, "run_start"));
  CHECK(has_key(v, "run_stop"));
  CHECK(has_key(v, "block_start"));
  auto none = check_log_text("no mllog here\n", {});
  CHECK_FALSE(none.passed);
  bool saw = false;
  for (const auto& m : none.failures) saw = saw || m.text == "No log lines detected";
  CHECK(saw);
}

TEST_CASE("equal EXACTLY_ONE duplicates warn; --werror makes them fail; --quiet drops them") {
  std::string log = make_log();
  const auto pos = log.find(":::MLLOG", log.find("\"run_start\"") - 120);
  const auto end = log.find('\n', pos);
  log.insert(end + 1, log.substr(pos, end - pos + 1));
  auto v = check_log_text(log, {});
  CHECK(v.passed);
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0].key == "run_start");
  CheckOptions strict;
  strict.werror = true;
  CHECK_FALSE(check_log_text(log, strict).passed);
  CheckOptions quiet;
  quiet.quiet = true;
  CHECK(check_log_text(log, quiet).warnings.empty());
}

TEST_CASE("unknown benchmark or division: FAIL with a reason, never a crash") {
  std::string log = make_log();
  log.replace(log.find("\"bert\""), 6, "\"resnet\"");
  auto v = check_log_text(log, {});
  CHECK_FALSE(v.passed);
  CHECK(v.checker_error.find("closed_resnet.yaml") != std::string::npos);
  CHECK_THROWS_AS(check_log_text(log, CheckOptions{"6.1.0"}), bert::UserError);
}
