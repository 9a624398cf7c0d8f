// Reads cases from stdin, one JSON object a line ({"x": [...], "y": [...]}), and prints for each
// {"u1": U, "p": p, "method": "exact"|"asymptotic"}: mann_whitney_u for the scipy comparison.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/history/mann_whitney.h"

int main() {
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    const nlohmann::json c = nlohmann::json::parse(line);
    const auto r = bert::harness::history::mann_whitney_u(c["x"].get<std::vector<double>>(), c["y"].get<std::vector<double>>());
    std::cout << nlohmann::json{{"u1", r.u1}, {"p", r.p}, {"method", r.method}}.dump() << "\n";
  }
  return 0;
}
