// Output sets that never look whole before they are: every bert-data command that writes a folder makes it
// as OUT.partial and renames it to OUT when complete (dataset/README.md, "Partial outputs").
#pragma once
#include <functional>
#include <string>

namespace bert::data {

// OUT.partial beside OUT (trailing separators of OUT dropped: "out/" gives "out.partial", not "out/.partial").
std::string partial_folder(const std::string& out);

// Renames the finished `partial` to `out` (an empty folder `out` is replaced); DataError naming out if it fails.
void publish_folder(const std::string& partial, const std::string& out);

// Runs make(OUT.partial) and renames OUT.partial to OUT when it returns: an input that fails half-way (a
// truncated shard) or a killed run leaves no output set that looks whole. OUT must not exist (or be an empty
// folder); a stale OUT.partial is removed first, and OUT.partial is removed when make throws.
void into_new_folder(const std::string& out, const std::function<void(const std::string&)>& make);

}  // namespace bert::data
