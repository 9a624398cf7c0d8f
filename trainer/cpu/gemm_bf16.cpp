#include "trainer/cpu/gemm_bf16.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "trainer/cpu/bf16_round.h"

namespace bert::cpu {

namespace {

using dt = dnnl::memory::data_type;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

struct Mirror {
  const float* base = nullptr;
  size_t n = 0;
  const uint16_t* bf16 = nullptr;
};
std::vector<Mirror> g_copies;  // registered bf16 copies (the weights, a few activations)

// The operand's bf16 copy when all of op(X) lies inside a registered buffer, else null.
const uint16_t* mirrored(const float* x, int ld, bool trans, int rows, int cols) {
  const int outer = trans ? cols : rows, inner = trans ? rows : cols;
  for (const Mirror& m : g_copies) {
    if (x < m.base || x >= m.base + m.n) continue;
    const size_t last = static_cast<size_t>(x - m.base) + static_cast<size_t>(outer - 1) * ld + inner;
    if (last <= m.n) return m.bf16 + (x - m.base);
  }
  return nullptr;
}

// op(X) of `rows` x `cols` from row-major X with leading dimension ld, packed densely as bf16
// (row-major [rows, cols] when not transposed, [cols, rows] when transposed: the same memory as X).
void pack(const float* x, int ld, bool trans, int rows, int cols, std::vector<uint16_t>& out) {
  const int outer = trans ? cols : rows, inner = trans ? rows : cols;
  out.resize(static_cast<size_t>(outer) * inner);
#pragma omp parallel for schedule(static) if (static_cast<long>(outer) * inner > (1L << 16))
  for (int r = 0; r < outer; ++r)
    round_to_bf16(x + static_cast<size_t>(r) * ld, out.data() + static_cast<size_t>(r) * inner,
                  static_cast<size_t>(inner));
}

dnnl::memory::desc operand(int rows, int cols, bool trans, int ld, dt type) {
  // op(X) is [rows, cols]; stored as X with leading dimension ld, i.e. transposed → column strides.
  return trans ? dnnl::memory::desc({rows, cols}, type, dnnl::memory::dims{1, ld})
               : dnnl::memory::desc({rows, cols}, type, dnnl::memory::dims{ld, 1});
}

struct Key {
  bool ta, tb;
  int m, n, k, lda, ldb, ldc;
  float alpha, beta;
  bool bias, c_bf16;
  bool operator<(const Key& o) const {
    return std::tie(ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, bias, c_bf16) <
           std::tie(o.ta, o.tb, o.m, o.n, o.k, o.lda, o.ldb, o.ldc, o.alpha, o.beta, o.bias, o.c_bf16);
  }
};

// A shape's primitive and its arguments: memory objects made once, pointed at each call's buffers
// (set_data_handle), so a call makes no oneDNN objects; attention's ~6,000 small products per step
// (128x128x64) take ~5 us each, about what making them cost.
struct Prim {
  dnnl::matmul mm;
  dnnl::memory a, b, bias, c, scratch;
  std::unordered_map<int, dnnl::memory> args;
};

dnnl::memory unbound(const dnnl::memory::desc& d) { return dnnl::memory(d, engine(), DNNL_MEMORY_NONE); }

}  // namespace

void to_bf16(const float* x, uint16_t* y, size_t n) {
  constexpr size_t kBlock = 1 << 16;
  const auto blocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(b) * kBlock;
    round_to_bf16(x + at, y + at, std::min(kBlock, n - at));
  }
}

void add_bf16_copy(const float* base, size_t n, const uint16_t* bf16) { g_copies.push_back({base, n, bf16}); }

void remove_bf16_copy(const float* base) {
  for (size_t i = g_copies.size(); i-- > 0;)
    if (g_copies[i].base == base) {
      g_copies.erase(g_copies.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

namespace {

std::string isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "isa " + std::to_string(static_cast<int>(isa));
  }
}

}  // namespace

bool cpu_has_bf16_matmul(std::string* isa) {
  const dnnl::cpu_isa got = dnnl::get_effective_cpu_isa();
  const bool has = got == dnnl::cpu_isa::avx512_core_amx || got == dnnl::cpu_isa::avx512_core_bf16;
  if (isa) *isa = has ? isa_name(got) : isa_name(got) + ", no bf16 matrix instructions";
  return has;
}

std::string bf16_matmul_refused(const char* what) {
  std::string isa;
  cpu_has_bf16_matmul(&isa);
  return std::string("bf16 matrix products need a CPU with avx512_bf16 or AMX-BF16 (oneDNN's instruction set "
                     "here: ") + isa + "); oneDNN: " + what;
}

namespace {

// C's rows between a strided C and dense scratch (elements of `size` bytes).
void copy_rows(const void* from, int from_ld, void* to, int to_ld, int m, int n, size_t size) {
  for (int i = 0; i < m; ++i)
    std::memcpy(static_cast<char*>(to) + static_cast<size_t>(i) * to_ld * size,
                static_cast<const char*>(from) + static_cast<size_t>(i) * from_ld * size, size * n);
}

}  // namespace

void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb,
               float beta, Output c, int ldc, const float* bias) {
  if (m == 0 || n == 0) return;
  const bool c16 = c.bf16 != nullptr;
  const size_t c_size = c16 ? sizeof(uint16_t) : sizeof(float);
  void* const c_mem = c16 ? static_cast<void*>(c.bf16) : static_cast<void*>(c.f32);
  if (ldc != n) {
    // oneDNN takes its AMX kernels only for a dense C (a strided one, e.g. a head's slice of a
    // [T, hidden] output, falls back to the slower non-AMX gemm:jit), so C goes through dense scratch.
    thread_local std::vector<float> dense;
    dense.resize(static_cast<size_t>(m) * n);
    if (beta != 0.0f) copy_rows(c_mem, ldc, dense.data(), n, m, n, c_size);
    const Output d = c16 ? Output(reinterpret_cast<uint16_t*>(dense.data())) : Output(dense.data());
    gemm_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, d, n, bias);
    copy_rows(dense.data(), n, c_mem, ldc, m, n, c_size);
    return;
  }
  thread_local std::vector<uint16_t> a16, b16;
  // A bf16 operand, or one inside the mirror, is read there with its own leading dimension; any other
  // is rounded into dense scratch.
  const uint16_t* am16 = a.bf16 ? a.bf16 : mirrored(a.f32, lda, ta, m, k);
  const uint16_t* bm16 = b.bf16 ? b.bf16 : mirrored(b.f32, ldb, tb, k, n);
  if (!am16) pack(a.f32, lda, ta, m, k, a16), lda = ta ? m : k;
  if (!bm16) pack(b.f32, ldb, tb, k, n, b16), ldb = tb ? k : n;
  // One primitive per shape, made once: building a primitive descriptor searches the implementations
  // each time (oneDNN's own cache only saves the JIT), and a step repeats the same ~20 shapes.
  const Key key{ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, bias != nullptr, c16};
  thread_local std::map<Key, Prim> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    const dnnl::memory::desc ad = operand(m, k, ta, lda, dt::bf16), bd = operand(k, n, tb, ldb, dt::bf16);
    const dnnl::memory::desc cd({m, n}, c16 ? dt::bf16 : dt::f32, dnnl::memory::dims{ldc, 1});
    const dnnl::memory::desc biasd =
        bias ? dnnl::memory::desc({1, n}, dt::f32, dnnl::memory::dims{n, 1}) : dnnl::memory::desc();
    dnnl::primitive_attr attr;
    // Our scratchpad, kept across calls: oneDNN's own is allocated per execution, and the fresh pages
    // cost more (page faults) than a small GEMM.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    dnnl::matmul::primitive_desc pd;
    try {
      pd = dnnl::matmul::primitive_desc(bias ? dnnl::matmul::desc(ad, bd, biasd, cd) : dnnl::matmul::desc(ad, bd, cd),
                                        attr, engine());
    } catch (const dnnl::error& e) {  // no bf16 matmul on this CPU: one line naming the feature, not an abort
      throw std::runtime_error(bf16_matmul_refused(e.what()));
    }
    Prim p{dnnl::matmul(pd), unbound(ad), unbound(bd), bias ? unbound(biasd) : dnnl::memory(),
           unbound(cd), unbound(pd.scratchpad_desc()), {}};
    p.args = {{DNNL_ARG_SRC, p.a}, {DNNL_ARG_WEIGHTS, p.b}, {DNNL_ARG_DST, p.c}, {DNNL_ARG_SCRATCHPAD, p.scratch}};
    if (bias) p.args.emplace(DNNL_ARG_BIAS, p.bias);
    it = cache.emplace(key, std::move(p)).first;
  }
  Prim& p = it->second;
  thread_local std::vector<uint8_t> scratch;
  if (scratch.size() < p.scratch.get_desc().get_size()) scratch.resize(p.scratch.get_desc().get_size());
  thread_local dnnl::stream s(engine());
  p.scratch.set_data_handle(scratch.data());
  p.a.set_data_handle(const_cast<uint16_t*>(am16 ? am16 : a16.data()));
  p.b.set_data_handle(const_cast<uint16_t*>(bm16 ? bm16 : b16.data()));
  p.c.set_data_handle(c_mem);
  if (bias) p.bias.set_data_handle(const_cast<float*>(bias));
  p.mm.execute(s, p.args);
  s.wait();
}

}  // namespace bert::cpu
