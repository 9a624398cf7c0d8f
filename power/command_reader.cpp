// source command: any command that prints the node's watts (`sh -c`, its first number).
#include "power/reader.h"
#include "power/run_command.h"

namespace bert::power {
namespace {

class CommandReader final : public Reader {
 public:
  explicit CommandReader(const MonitorConfig& c) : cmd_(c.command), timeout_(read_timeout_s(c)) {}
  Reading read() override {
    const CommandResult r = run_command({"sh", "-c", cmd_}, timeout_);
    if (!r.ok()) return {std::nullopt, "`" + cmd_ + "`: " + r.describe() + tail(r.output)};
    const auto w = first_number(r.output);
    if (!w || *w < 0) return {std::nullopt, "`" + cmd_ + "` printed no number of watts" + tail(r.output)};
    return {w, ""};
  }

 private:
  static std::string tail(const std::string& out) {
    std::string s = out.substr(0, out.find('\n'));
    return s.empty() ? "" : ": " + s.substr(0, 200);
  }
  std::string cmd_;
  double timeout_;
};

}  // namespace

std::unique_ptr<Reader> make_command_reader(const MonitorConfig& cfg) { return std::make_unique<CommandReader>(cfg); }

}  // namespace bert::power
