// Linux PU numbering for hwloc synthetic topologies.
#pragma once
#include <string>

namespace bert::binding {

// hwloc numbers the PUs of a synthetic topology core by core (`pu:2`: core 0 = PUs 0,1). Linux on Intel
// and AMD servers numbers the first thread of every core first and the SMT siblings after them (sibling =
// PU + number of cores: core 0 = PUs 0,64 on 2x32 cores), and so do lstopo exports of real nodes. Returns
// `desc` with explicit Linux indexes on its PU level, or `desc` unchanged when it has no SMT, when the PU
// level already has attributes (the user's own `indexes=`), or when hwloc cannot read it (the caller
// reports that).
std::string with_linux_pu_numbering(const std::string& desc);

}  // namespace bert::binding
