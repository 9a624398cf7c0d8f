#include "trainer/precision.h"

#include <array>

namespace bert::trainer {
namespace {

// Which backends compute in each precision (its word: kPrecisionNames).
struct Row {
  Precision value;
  bool cpu, cuda;         // the backends that compute in it
  std::string_view needs;  // what it runs on, for precision_problem's words
};

constexpr std::array<Row, 3> kRows{{
    {Precision::fp32, true, false, "run.backend: cpu"},
    {Precision::bf16, true, true, "run.backend: cuda, or cpu on a CPU with avx512_bf16/AMX"},
    {Precision::fp8, false, true, "run.backend: cuda on GPUs with FP8 matrix units (sm_89, sm_90 and later)"},
}};

const Row& row(Precision p) {
  for (const Row& r : kRows)
    if (r.value == p) return r;
  return kRows.front();
}

bool runs_on(const Row& r, Backend backend) { return backend == Backend::Cuda ? r.cuda : r.cpu; }

}  // namespace

Precision default_precision(Backend backend) { return backend == Backend::Cuda ? Precision::bf16 : Precision::fp32; }

Precision resolve_precision(std::optional<Precision> asked, Backend backend) { return asked.value_or(default_precision(backend)); }

std::string precision_problem(Precision p, Backend backend) {
  const Row& r = row(p);
  if (runs_on(r, backend)) return "";
  std::string allowed;
  for (const Row& x : kRows)
    if (runs_on(x, backend)) allowed += (allowed.empty() ? "" : " or ") + to_string(x.value);
  return "the " + std::string(backend_name(backend)) + " backend computes in " + allowed + " (" + to_string(p) + " needs " +
         std::string(r.needs) + ")";
}

}  // namespace bert::trainer
