// Multi-head self-attention core over variable-length sequences (block-diagonal: a token attends only
// to the tokens of its own sequence, which covers both padded and packed batches).
// Q, K, V, ctx are [T, hidden] in the compact token layout; sequence s is rows [start[s], start[s+1]).
// Attention-probability dropout uses the RNG element index of dropout_rng.h.
// attention.cpp computes each (sequence, head) as BLAS GEMMs (QKᵀ, P·V and their gradients) on the
// strided head slices of Q/K/V, one (sequence, head) per OpenMP task through gemm_on_thread: OpenBLAS
// (fp32) or gemm_bf16 (run.precision bf16: bf16 operands, fp32 accumulation; softmax and dropout fp32).
#pragma once
#include <cstdint>
#include <vector>

#include "trainer/cpu/gemm.h"
#include "trainer/cpu/operand.h"
#include "trainer/model/dropout_rng.h"

namespace bert::cpu {

struct AttentionShape {
  int heads = 0, head_dim = 0;
  int seq_len = 0;                      // the Batch's seq_len (for the dropout element index)
  const int32_t* start = nullptr;       // num_seqs + 1 compact offsets
  const int32_t* first_flat = nullptr;  // flat Batch index of each sequence's first token
  int num_seqs = 0;
  // Offsets of each sequence's heads·Lq·L probability block (num_seqs + 1), see attention_prob_offsets.
  const int64_t* prob_offset = nullptr;
  // Queries on a subset of the rows (the last layer, whose output the heads read on a few rows only):
  // sequence s's queries are rows [q_start[s], q_start[s+1]) of q, ctx (and dq, dctx), and q_pos gives
  // each one's position in its sequence. K and V keep every row. nullptr: every row is a query.
  const int32_t* q_start = nullptr;
  const int32_t* q_pos = nullptr;
};

// The probabilities after dropout (P·keep/(1-p)), at prob_offset like probs: the forward keeps them for
// backward's dV, which otherwise computes them again. fp32 GEMMs use f32, bf16 ones bf16 (written as
// bf16 by the forward, the operand both P·V and dV read: rounded once). Both null: not kept.
struct AttentionDropped {
  float* f32 = nullptr;
  uint16_t* bf16 = nullptr;
};

std::vector<int64_t> attention_prob_offsets(const int32_t* start, int num_seqs, int heads,
                                            const int32_t* q_start = nullptr);

// probs: softmax(QKᵀ/√d) before dropout; keep: the dropout mask (both saved for backward).
// q, k, v and ctx may be bf16 (operand.h) in bf16 runs; precision bf16: the products in bf16.
void attention_forward(const AttentionShape& s, Operand q, Operand k, Operand v, float* probs, uint8_t* keep,
                       Output ctx, const model::DropoutStream& rng, float p, MatmulPrecision precision,
                       AttentionDropped dropped = {});
// dq, dk, dv overwritten. `dropped`: the forward's, if it kept them.
void attention_backward(const AttentionShape& s, Operand q, Operand k, Operand v, const float* probs,
                        const uint8_t* keep, const float* dctx, float* dq, float* dk, float* dv, float p,
                        MatmulPrecision precision, AttentionDropped dropped = {});

// The same two ops as plain loops (attention_ref.cpp): the reference the GEMM form is tested against
// (every row a query: q_start must be nullptr).
void attention_forward_ref(const AttentionShape& s, const float* q, const float* k, const float* v, float* probs,
                           uint8_t* keep, float* ctx, const model::DropoutStream& rng, float p);
void attention_backward_ref(const AttentionShape& s, const float* q, const float* k, const float* v,
                            const float* probs, const uint8_t* keep, const float* dctx, float* dq, float* dk,
                            float* dv, float p);

}  // namespace bert::cpu
