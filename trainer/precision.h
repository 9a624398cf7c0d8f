// The math precision of a run (`run.precision` in the run config, `benchmark.precision` in a system
// YAML) as a type: one table of names (common/enum_names.h; the schema's choices), the one rule that
// gives a backend its precision when none is asked for (resolve_precision: "auto" in a system YAML, no
// run.precision in a run config; cuda bf16, cpu fp32), and which backend computes in which. The run
// config (trainer/run_config.cpp) and the Plan (harness/plan/build_plan.cpp) parse the text once;
// everything below them takes a Precision.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/enum_names.h"
#include "trainer/backend.h"

namespace bert::trainer {

enum class Precision {
  fp32,  // cpu: fp32 GEMMs
  bf16,  // cpu: bf16 GEMM operands (oneDNN, needs avx512_bf16/AMX); cuda: bf16 compute, fp32 master weights
  fp8,   // cuda only, FP8 matrix units (sm_89, sm_90+): the encoder's dense GEMMs in FP8 (E4M3 forward,
         // E5M2 gradients, delayed scaling), the rest as bf16
};

inline constexpr EnumNames<Precision, 3> kPrecisionNames{
    {{Precision::fp32, "fp32"}, {Precision::bf16, "bf16"}, {Precision::fp8, "fp8"}}};

// In table order: "fp32", "bf16", "fp8".
inline std::vector<std::string> precision_names() { return enum_choices(kPrecisionNames); }
inline std::optional<Precision> parse_precision(std::string_view name) { return parse_enum(name, kPrecisionNames); }
inline std::string to_string(Precision p) { return enum_name(p, kPrecisionNames); }

// The precision a backend computes in when none is asked for: cuda bf16, cpu fp32.
Precision default_precision(Backend backend);
// The precision a run computes in: the one asked for, else (system YAML `auto`, no run.precision) the
// backend's. The one place "auto" becomes a precision.
Precision resolve_precision(std::optional<Precision> asked, Backend backend);

// "" when `backend` can compute in `p` (what the machine must offer is checked where it runs: the CPU's
// bf16 instructions, the GPU's FP8 units), else why not: "the cpu backend computes in fp32 or bf16 (fp8
// needs run.backend: cuda on GPUs with FP8 matrix units ...)".
std::string precision_problem(Precision p, Backend backend);

}  // namespace bert::trainer
