// Whether this CPU runs bf16 GEMMs (avx512_bf16 or AMX-BF16); if not, says why the test is skipped.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "trainer/cpu/gemm_bf16.h"

namespace bert::test {

inline bool have_bf16() {
  std::string isa;
  const bool ok = cpu::cpu_has_bf16_matmul(&isa);
  if (!ok) MESSAGE("skipped: this CPU has " << isa);
  return ok;
}

}  // namespace bert::test
