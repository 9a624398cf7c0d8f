// LayerNorm over the last dimension (eps 1e-12 in BERT), fp32 statistics as TF/NVIDIA compute them.
#pragma once

namespace bert::cpu {

inline constexpr float kLayerNormEps = 1e-12f;

// y = (x - mean)·rstd·gamma + beta; saves mean and rstd per row for the backward pass.
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int t, int n);
// dx = gradient wrt x (overwrites); dgamma, dbeta accumulate (accumulate false: overwritten).
void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd, const float* dy,
                        float* dx, float* dgamma, float* dbeta, int t, int n, bool accumulate = true);

// The same two ops as plain loops (layernorm_ref.cpp): the reference the vectorised ones are tested against.
void layernorm_forward_ref(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                           int t, int n);
void layernorm_backward_ref(const float* x, const float* gamma, const float* mean, const float* rstd, const float* dy,
                            float* dx, float* dgamma, float* dbeta, int t, int n);

}  // namespace bert::cpu
