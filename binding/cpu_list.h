// hwloc list strings ("0-13,112-125") <-> sorted index vectors, with strict syntax checking.
#pragma once
#include <string>
#include <vector>

namespace bert::binding {

using IndexList = std::vector<int>;  // sorted, unique, non-negative (physical OS indexes)

// Parses "0-3,8,10-11". Empty string = empty list. Throws UserError(field, ...) naming the bad
// part on anything else (letters, reversed range, negative, missing bound).
IndexList parse_list(const std::string& text, const std::string& field);
std::string format_list(const IndexList& list);

IndexList list_intersect(const IndexList& a, const IndexList& b);
IndexList list_union(const IndexList& a, const IndexList& b);
IndexList list_minus(const IndexList& a, const IndexList& b);
bool list_contains(const IndexList& list, int index);

// First member of `wanted` that is not in `allowed`, or -1.
int first_outside(const IndexList& wanted, const IndexList& allowed);

// numactl's wording plus the allowed list: "cpu argument 95 is out of range (allowed: 0-83,96-179)".
// `what` is "cpu" or "node".
std::string out_of_range_message(const std::string& what, int index, const IndexList& allowed);

}  // namespace bert::binding
