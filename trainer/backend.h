// run.backend as a type: which backend trains (the CUDA one is the trainer-cuda binary). One table of
// names, which also gives the schema's choices.
#pragma once
#include "common/enum_names.h"

namespace bert::trainer {

enum class Backend { Cpu, Cuda };
inline constexpr EnumNames<Backend, 2> kBackendNames{{{Backend::Cpu, "cpu"}, {Backend::Cuda, "cuda"}}};
inline const char* backend_name(Backend b) { return enum_name(b, kBackendNames); }

}  // namespace bert::trainer
