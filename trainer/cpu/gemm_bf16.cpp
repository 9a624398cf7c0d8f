#include "trainer/cpu/gemm_bf16.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

using dt = dnnl::memory::data_type;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

BERT_CPU_CLONES void to_bf16_block(const float* x, uint16_t* y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, &x[i], 4);
    const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
    y[i] = static_cast<uint16_t>(nan ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
}

// op(X) of `rows` x `cols` from row-major X with leading dimension ld, packed densely as bf16
// (row-major [rows, cols] when not transposed, [cols, rows] when transposed: the same memory as X).
void pack(const float* x, int ld, bool trans, int rows, int cols, std::vector<uint16_t>& out) {
  const int outer = trans ? cols : rows, inner = trans ? rows : cols;
  out.resize(static_cast<size_t>(outer) * inner);
#pragma omp parallel for schedule(static) if (static_cast<long>(outer) * inner > (1L << 16))
  for (int r = 0; r < outer; ++r)
    to_bf16_block(x + static_cast<size_t>(r) * ld, out.data() + static_cast<size_t>(r) * inner,
                  static_cast<size_t>(inner));
}

dnnl::memory::desc operand(int rows, int cols, bool trans, dt type) {
  // op(X) is [rows, cols]; stored densely as X, i.e. transposed → column strides.
  return trans ? dnnl::memory::desc({rows, cols}, type, dnnl::memory::dims{1, rows})
               : dnnl::memory::desc({rows, cols}, type, dnnl::memory::dims{cols, 1});
}

struct Key {
  bool ta, tb;
  int m, n, k, ldc;
  float alpha, beta;
  bool operator<(const Key& o) const {
    return std::tie(ta, tb, m, n, k, ldc, alpha, beta) < std::tie(o.ta, o.tb, o.m, o.n, o.k, o.ldc, o.alpha, o.beta);
  }
};

struct Prim {
  dnnl::matmul mm;
  dnnl::memory::desc a, b, c;
};

}  // namespace

void to_bf16(const float* x, uint16_t* y, size_t n) { to_bf16_block(x, y, n); }

bool cpu_has_bf16_matmul(std::string* isa) {
  const dnnl::cpu_isa got = dnnl::get_effective_cpu_isa();
  if (isa) {
    switch (got) {
      case dnnl::cpu_isa::avx512_core_amx: *isa = "avx512_core_amx"; break;
      case dnnl::cpu_isa::avx512_core_bf16: *isa = "avx512_core_bf16"; break;
      default: *isa = "no bf16 matrix instructions";
    }
  }
  return got == dnnl::cpu_isa::avx512_core_amx || got == dnnl::cpu_isa::avx512_core_bf16;
}

void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc) {
  if (m == 0 || n == 0) return;
  thread_local std::vector<uint16_t> a16, b16;
  pack(a, lda, ta, m, k, a16);
  pack(b, ldb, tb, k, n, b16);
  // One primitive per shape, made once: building a primitive descriptor searches the implementations
  // each time (oneDNN's own cache only saves the JIT), and a step repeats the same ~20 shapes.
  const Key key{ta, tb, m, n, k, ldc, alpha, beta};
  thread_local std::map<Key, Prim> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    const dnnl::memory::desc ad = operand(m, k, ta, dt::bf16), bd = operand(k, n, tb, dt::bf16);
    const dnnl::memory::desc cd({m, n}, dt::f32, dnnl::memory::dims{ldc, 1});
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), attr, engine());
    it = cache.emplace(key, Prim{dnnl::matmul(pd), ad, bd, cd}).first;
  }
  const Prim& p = it->second;
  dnnl::stream s(engine());
  dnnl::memory am(p.a, engine(), a16.data()), bm(p.b, engine(), b16.data()), cm(p.c, engine(), c);
  p.mm.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  s.wait();
}

}  // namespace bert::cpu
