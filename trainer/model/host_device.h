// BERT_HD marks the maths both backends share (trainer/model/dropout_rng.h, trainer/optim/schedule.h):
// a host and device function when nvcc compiles it, a plain inline function for the host compiler.
#pragma once

#if defined(__CUDACC__)
#define BERT_HD __host__ __device__ __forceinline__
#else
#define BERT_HD inline
#endif
