// The system YAML as a plain tree that keeps every value's file:line:col, so values merged from
// `extends:` bases and overrides still point at where they were written.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "common/user_error.h"

namespace bert::harness {

struct Tree {
  enum class Kind { Null, Scalar, Seq, Map };
  Kind kind = Kind::Null;
  std::string scalar;
  std::vector<Tree> seq;
  std::vector<std::pair<std::string, Tree>> map;  // file order
  Loc loc;                                        // where the value starts
  std::vector<Loc> key_locs;                      // Map: where each key is written

  const Tree* find(const std::string& key) const;
  Tree* find(const std::string& key);
  void set(const std::string& key, Tree value, const Loc& key_loc);
  void erase(const std::string& key);
};

// Parses YAML text; `file` names it in messages. Throws UserError (malformed YAML, duplicate key).
Tree parse_yaml(const std::string& text, const std::string& file);

// Reads a file and resolves `extends:` (a path or list of paths relative to the including file; bases
// first, later ones win, the file itself wins). Throws UserError on a missing file or a cycle.
Tree load_yaml_with_extends(const std::string& path);

// Deep merge: maps merge key by key, anything else in `over` replaces `base`.
void merge_into(Tree& base, const Tree& over);

}  // namespace bert::harness
