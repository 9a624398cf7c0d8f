// The one base type of the errors a user can cause (a bad YAML value, a missing or corrupt file, an
// impossible binding, a wrong command-line argument): where it is (file:line:col), the field it is
// about (a key path, dataset or option) and the message. Every program prints what() and exits 2.
// A lower layer that knows only the field (binding, launch lines, container flags) throws it without
// a place; the harness then rethrows it at the place the YAML key is written.
#pragma once
#include <stdexcept>
#include <string>

namespace bert {

// A position in a file: 1-based line and column; line 0 = the whole file, or a place that is not a
// file ("environment variable NEXP", "--set key=value").
struct Loc {
  std::string file;
  int line = 0;
  int col = 0;
  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) + ":" + std::to_string(col) : file; }
};

class UserError : public std::runtime_error {
 public:
  // A message that names its place itself ("shard_3.h5: dataset input_ids: ...").
  explicit UserError(const std::string& what) : std::runtime_error(what), message(what) {}
  // A problem with a field whose place the caller knows (what() is the message alone).
  UserError(std::string field_, std::string message_)
      : std::runtime_error(message_), field(std::move(field_)), message(std::move(message_)) {}
  // "file[:line:col]: field: message" (the field part only when there is one).
  UserError(Loc where, std::string field_, std::string message_)
      : std::runtime_error(where.str() + ": " + (field_.empty() ? "" : field_ + ": ") + message_),
        loc(std::move(where)), field(std::move(field_)), message(std::move(message_)) {}

  Loc loc;              // file "" = not placed yet
  std::string field;
  std::string message;  // without place and field
};

}  // namespace bert
