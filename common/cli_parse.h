// The command line of our CLI11 programs read one way: --help exits 0, a usage error exits 2 with CLI11's
// message (its own exit codes, 105, 109 and so on, never reach the shell). Header-only over CLI11; the
// program links CLI11::CLI11.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>

namespace bert {

// argv parsed into app (subcommand callbacks run here, their exceptions pass through): nullopt when the
// program goes on, else its exit code after CLI11 has printed the help or the error.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

// A subcommand registered in one function and run in another (harness import, package, probe): Self
// derives from it and adds the values its options fill. CLI11 keeps pointers into them, so there is one
// Self for the program, instance().
template <class Self>
struct CliSubcommand {
  CLI::App* cmd = nullptr;
  // Whether this subcommand was the one on the command line.
  bool given() const { return cmd != nullptr && cmd->parsed(); }
  static Self& instance() {
    static Self s;
    return s;
  }
};

}  // namespace bert
