// TWINMAF_HD marks arithmetic shared by a CPU reference and its CUDA kernel:
// __host__ __device__ under nvcc, nothing for the host compiler. Headers using
// it must stay CUDA-safe (no fmt, no Status).
#pragma once

#if defined(__CUDACC__)
#define TWINMAF_HD __host__ __device__ __forceinline__
#else
#define TWINMAF_HD inline
#endif

// Before a loop the device code must not unroll (register pressure); nothing
// for the host compiler.
#if defined(__CUDACC__)
#define TWINMAF_NO_UNROLL _Pragma("unroll 1")
#else
#define TWINMAF_NO_UNROLL
#endif
