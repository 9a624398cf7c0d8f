#include "harness/history/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "harness/history/html_page.h"

namespace bert::harness::history {

namespace {

constexpr double kW = 720, kH = 340;                              // the whole chart
constexpr double kLeft = 70, kRight = 20, kTop = 34, kBottom = 52; // plot area margins
constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string tick_text(double v, double step) {
  if (std::fabs(v) >= 1e6 || (v != 0 && std::fabs(v) < 1e-3)) return fmt::format("{:.3g}", v);
  const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step)));
  return fmt::format("{:.{}f}", v, std::clamp(decimals, 0, 6));
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  void settle() {
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {  // one value: a band around it
      const double pad = std::fabs(hi) > 0 ? std::fabs(hi) * 0.05 : 1;
      lo -= pad;
      hi += pad;
    }
  }
};

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int want) {
  std::vector<double> t;
  if (!(hi > lo) || want < 2) return {lo};
  const double raw = (hi - lo) / (want - 1);
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  const double first = std::floor(lo / step);
  for (int i = 0; i < 1000; ++i) {  // from the tick at or below lo to the one at or above hi
    t.push_back((first + i) * step);
    if (t.back() >= hi - step * 1e-9) break;
  }
  return t;
}

std::string svg_line_chart(const ChartSpec& c) {
  Range xr, yr;
  for (const ChartSeries& s : c.series) {
    for (double x : s.x) xr.add(x);
    for (double y : s.y) yr.add(y);
  }
  if (c.y_line) yr.add(*c.y_line);
  if (!c.x_names.empty()) xr.add(0), xr.add(double(c.x_names.size() - 1));
  xr.settle();
  yr.settle();
  const std::vector<double> xt = c.x_names.empty() ? nice_ticks(xr.lo, xr.hi, 6) : std::vector<double>{};
  const std::vector<double> yt = nice_ticks(yr.lo, yr.hi, 6);
  if (c.x_names.empty() && xt.size() > 1) xr.lo = std::min(xr.lo, xt.front()), xr.hi = std::max(xr.hi, xt.back());
  if (yt.size() > 1) yr.lo = std::min(yr.lo, yt.front()), yr.hi = std::max(yr.hi, yt.back());
  if (!c.x_names.empty()) xr.lo -= 0.5, xr.hi += 0.5;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto py = [&](double y) { return kTop + ph - (y - yr.lo) / (yr.hi - yr.lo) * ph; };

  const size_t legend_rows = (c.series.size() + 4) / 5;
  const double height = kH + double(legend_rows) * 18;
  std::string o = fmt::format(
      "<svg class=\"chart\" id=\"{}\" data-series-count=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">\n",
      html_escape(c.id), c.series.size(), kW, height, kW, height, html_escape(c.title));
  o += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"15\" font-weight=\"600\">{}</text>\n", kLeft, html_escape(c.title));
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft, kTop, pw, ph);
  for (double v : yt) {
    if (v < yr.lo - 1e-12 || v > yr.hi + 1e-12) continue;
    o += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e5e5e5\"/>", kLeft, kLeft + pw, py(v), py(v));
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", kLeft - 6, py(v) + 4,
                     tick_text(v, yt.size() > 1 ? yt[1] - yt[0] : 1));
  }
  for (double v : xt) {
    if (v < xr.lo - 1e-12 || v > xr.hi + 1e-12) continue;
    o += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e5e5e5\"/>", px(v), px(v), kTop, kTop + ph);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", px(v), kTop + ph + 15,
                     tick_text(v, xt.size() > 1 ? xt[1] - xt[0] : 1));
  }
  for (size_t i = 0; i < c.x_names.size(); ++i)
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\">{}</text>\n", px(double(i)),
                     kTop + ph + 15, html_escape(c.x_names[i]));
  o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n", kLeft + pw / 2,
                   kTop + ph + 34, html_escape(c.x_label));
  o += fmt::format("<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
                   kTop + ph / 2, kTop + ph / 2, html_escape(c.y_label));
  if (c.y_line) {
    o += fmt::format("<line class=\"reference\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d62728\" "
                     "stroke-dasharray=\"6 4\"/>",
                     kLeft, kLeft + pw, py(*c.y_line), py(*c.y_line));
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#d62728\" text-anchor=\"end\">{}</text>\n",
                     kLeft + pw - 4, py(*c.y_line) - 4, html_escape(c.y_line_label));
  }
  for (size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const char* color = kColors[i % std::size(kColors)];
    o += fmt::format("<g class=\"series\" data-series=\"{}\" stroke=\"{}\" fill=\"{}\">", html_escape(s.name), color, color);
    std::string pts;
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k)
      if (std::isfinite(s.x[k]) && std::isfinite(s.y[k])) pts += fmt::format("{:.1f},{:.1f} ", px(s.x[k]), py(s.y[k]));
    if (!pts.empty()) o += "<polyline fill=\"none\" stroke-width=\"1.6\" points=\"" + pts + "\"/>";
    if (s.x.size() <= 400)  // a point per value, with its tooltip; long series (power) are lines only
      for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k)
        if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]))
          o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}: {} = {:.6g}, {} = {:.6g}</title></circle>",
                           px(s.x[k]), py(s.y[k]), html_escape(s.name), html_escape(c.x_label),
                           c.x_names.empty() || k >= c.x_names.size() ? s.x[k] : double(k), html_escape(c.y_label), s.y[k]);
    o += "</g>\n";
  }
  for (size_t i = 0; i < c.series.size(); ++i) {
    const double lx = kLeft + double(i % 5) * 128, ly = kH - 6 + double(i / 5) * 18;
    o += fmt::format("<g class=\"legend-item\" data-series=\"{}\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" "
                     "fill=\"{}\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text></g>\n",
                     html_escape(c.series[i].name), lx, ly - 10, kColors[i % std::size(kColors)], lx + 16, ly,
                     html_escape(c.series[i].name));
  }
  o += "</svg>\n";
  return o;
}

}  // namespace bert::harness::history
