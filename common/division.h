// The MLPerf division a set or a log is for (experiment.division, a log's submission_division): closed
// has its rules checked (and the RCPs), open does not.
#pragma once
#include "common/enum_names.h"

namespace bert {

enum class Division { Closed, Open };
inline constexpr EnumNames<Division, 2> kDivisionNames{{{Division::Closed, "closed"}, {Division::Open, "open"}}};

}  // namespace bert
