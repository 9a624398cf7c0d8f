#include <doctest/doctest.h>

#include "harness/history/history_view.h"
#include "harness/history/html_page.h"
#include "harness/history/svg_chart.h"

using namespace bert::harness::history;

TEST_CASE("html: escaping, and a page that names no URL") {
  CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  const std::string page = html_page("t <1>", "<p>body</p>");
  CHECK(page.find("<title>t &lt;1&gt;</title>") != std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("<script>") != std::string::npos);
}

TEST_CASE("svg chart: a polyline and a point per value, the reference line, a legend; round ticks") {
  ChartSpec c{"acc", "Eval accuracy", "samples", "accuracy", {{"run 1", {1, 2, 3}, {0.1, 0.5, 0.7}}}, 0.72, "target", {}};
  const std::string svg = svg_line_chart(c);
  CHECK(svg.find("<svg class=\"chart\" id=\"acc\"") == 0);
  CHECK(svg.find("<polyline") != std::string::npos);
  CHECK(svg.find("class=\"reference\"") != std::string::npos);
  CHECK(svg.find("legend-item") != std::string::npos);
  size_t circles = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
  CHECK(circles == 3);
  const std::vector<double> t = nice_ticks(0, 1, 6);
  REQUIRE(t.size() == 6);
  CHECK(t[3] == doctest::Approx(0.6));
  CHECK(t.back() == doctest::Approx(1));
  CHECK(nice_ticks(0, 95, 6).back() == 100);
}

TEST_CASE("history: a table with the plain mean marked, JSON with every set") {
  SetRecord s;
  s.id = 3;
  s.system_name = "local";
  s.recorded_at = "2026-01-02T03:04:05Z";
  s.mean_min = 1.5;
  s.references.push_back({"time_to_train_min", 1, 0.05, 1.5, "plain mean", "missed"});
  const std::string table = format_history({s});
  CHECK(table.find("1.5*") != std::string::npos);
  CHECK(table.find("MISSED 0/1") != std::string::npos);
  const ojson j = history_json({s}, "/db");
  CHECK(j["sets"][0]["system_name"] == "local");
  CHECK(history_html({s}, "/db").find("trend_ttt_local") != std::string::npos);
}
