#include "trainer/precision.h"

#include <array>

namespace bert::trainer {
namespace {

struct Row {
  Precision value;
  std::string_view name;
  bool cpu, cuda;         // the backends that compute in it
  std::string_view needs;  // what it runs on, for precision_problem's words
};

constexpr std::array<Row, 3> kRows{{
    {Precision::fp32, "fp32", true, false, "run.backend: cpu"},
    {Precision::bf16, "bf16", true, true, "run.backend: cuda, or cpu on a CPU with avx512_bf16/AMX"},
    {Precision::fp8, "fp8", false, true, "run.backend: cuda on GPUs with FP8 matrix units (sm_89, sm_90 and later)"},
}};

const Row& row(Precision p) {
  for (const Row& r : kRows)
    if (r.value == p) return r;
  return kRows.front();
}

bool runs_on(const Row& r, Backend backend) { return backend == Backend::Cuda ? r.cuda : r.cpu; }

}  // namespace

std::vector<std::string> precision_names() {
  std::vector<std::string> out;
  for (const Row& r : kRows) out.emplace_back(r.name);
  return out;
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (const Row& r : kRows)
    if (r.name == name) return r.value;
  return std::nullopt;
}

std::string to_string(Precision p) { return std::string(row(p).name); }

Precision default_precision(Backend backend) { return backend == Backend::Cuda ? Precision::bf16 : Precision::fp32; }

std::string precision_problem(Precision p, Backend backend) {
  const Row& r = row(p);
  if (runs_on(r, backend)) return "";
  std::string allowed;
  for (const Row& x : kRows)
    if (runs_on(x, backend)) allowed += (allowed.empty() ? "" : " or ") + std::string(x.name);
  return "the " + std::string(backend_name(backend)) + " backend computes in " + allowed + " (" + std::string(r.name) + " needs " +
         std::string(r.needs) + ")";
}

}  // namespace bert::trainer
