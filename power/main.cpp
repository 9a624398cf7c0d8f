// power-monitor: one node's power log for one run (started on every node by the harness through the
// set's launcher, harness/run/power_monitors.cpp), or one reading (--once, to try a source).
//   power-monitor --config monitor.json --out-dir DIR [--node K | --node-index-env VAR] [--stop-file F] -> DIR/node_<K>.txt
//   power-monitor --config monitor.json --once [--node K]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/cli_parse.h"
#include "power/monitor.h"
#include "power/reader.h"

namespace {

int node_index(int node, const std::string& env) {
  if (env.empty()) return node;
  const char* v = std::getenv(env.c_str());
  if (!v || !*v) throw std::runtime_error("$" + env + " is not set (the launcher's task index of this node)");
  return std::stoi(v);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"power-monitor: a node's power readings as an MLPerf power log"};
  std::string config, out_dir, index_env, stop_file;
  int node = 0;
  bool once = false;
  app.add_option("--config", config, "the monitor's JSON config (written by the harness)")->required();
  app.add_option("--out-dir", out_dir, "write <dir>/node_<k>.txt");
  app.add_option("--node", node, "this node's index k (default 0)");
  app.add_option("--node-index-env", index_env, "the variable holding this node's index (the launcher's task index)");
  app.add_option("--stop-file", stop_file, "stop (writing power_measurement_stop) once this file exists, as at SIGTERM");
  app.add_flag("--once", once, "print one reading and exit (0 = a reading, 1 = none)");
  if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  try {
    std::ifstream in(config);
    if (!in) throw std::runtime_error(config + ": cannot be read");
    const auto cfg = bert::power::MonitorConfig::from_json(bert::power::json::parse(in));
    const int k = node_index(node, index_env);
    const std::string host = static_cast<size_t>(k) < cfg.hosts.size() ? cfg.hosts[static_cast<size_t>(k)] : "node_" + std::to_string(k);
    auto reader = bert::power::make_reader(cfg, k);
    if (once) {
      const bert::power::Reading r = reader->read();
      if (!r.watts) {
        std::fprintf(stderr, "power-monitor %s: no reading: %s\n", host.c_str(), r.error.c_str());
        return 1;
      }
      std::printf("%s %.3f W%s\n", host.c_str(), *r.watts, reader->node_level() ? "" : " (GPUs only, not node-level)");
      return 0;
    }
    if (out_dir.empty()) throw std::runtime_error("--out-dir is required without --once");
    std::filesystem::create_directories(out_dir);
    const std::string path = out_dir + "/node_" + std::to_string(k) + ".txt";
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (!out) throw std::runtime_error(path + ": cannot be written");
    std::fprintf(stderr, "power-monitor %s: node %d, %s every %g s into %s\n", host.c_str(), k,
                 std::string(bert::enum_name(cfg.source, bert::power::kSourceNames)).c_str(), cfg.interval_s, path.c_str());
    const auto st = bert::power::run_monitor(cfg, *reader, host, out, stop_file);
    std::fclose(out);
    std::fprintf(stderr, "power-monitor %s: stopped: %ld readings, %ld failed\n", host.c_str(), st.readings, st.failures);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "power-monitor: ERROR: %s\n", e.what());
    return 2;
  }
}
