// Line charts as inline SVG for the self-contained HTML pages (report.html, history --html): axes with
// round ticks, one polyline and its points per series (each point's <title> is its tooltip), an
// optional horizontal reference line, a legend. Nothing external: the page needs no script to show it.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace bert::harness::history {

struct ChartSeries {
  std::string name;
  std::vector<double> x, y;   // same length; drawn in this order
};

struct ChartSpec {
  std::string id;             // the <svg> element's id
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  std::optional<double> y_line;  // e.g. the target accuracy
  std::string y_line_label;
  std::vector<std::string> x_names;  // when given: x = 0, 1, ... are these categories (dates of sets)
};

std::string svg_line_chart(const ChartSpec& c);

// Round tick values covering [lo, hi] (1, 2, 5 x 10^k steps), about `want` of them.
std::vector<double> nice_ticks(double lo, double hi, int want);

}  // namespace bert::harness::history
