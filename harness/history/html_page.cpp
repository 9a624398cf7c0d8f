#include "harness/history/html_page.h"

namespace bert::harness::history {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr std::string_view kCss = R"css(
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass, .met, .better { color: #17692d; font-weight: 600; } .fail, .missed, .worse { color: #b3261e; font-weight: 600; }
.note { color: #666; font-size: 0.9em; } pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.85em; }
svg.chart { display: block; margin: 0.6em 0; background: #fff; }
svg.chart .series.dim { opacity: 0.15; } svg.chart .legend-item { cursor: pointer; }
details { margin: 0.4em 0; }
)css";

// Hovering a legend entry brings its series forward (the others dim); nothing else needs a script.
constexpr std::string_view kScript = R"js(
document.querySelectorAll('svg.chart').forEach(function (chart) {
  chart.querySelectorAll('.legend-item').forEach(function (item) {
    var name = item.getAttribute('data-series');
    item.addEventListener('mouseenter', function () {
      chart.querySelectorAll('.series').forEach(function (s) {
        s.classList.toggle('dim', s.getAttribute('data-series') !== name);
      });
    });
    item.addEventListener('mouseleave', function () {
      chart.querySelectorAll('.series').forEach(function (s) { s.classList.remove('dim'); });
    });
  });
});
document.body.setAttribute('data-charts', String(document.querySelectorAll('svg.chart').length));
)js";

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + html_escape(title) + "</title>\n<style>" + std::string(kCss) + "</style>\n</head>\n<body>\n";
  out += body;
  out += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace bert::harness::history
