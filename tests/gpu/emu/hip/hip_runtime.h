// The CPU emulation (../cuda_runtime.h) with 64-lane wavefronts and the HIP spellings the emitter uses.
#pragma once

#define GIR_EMU_LANES 64
#include "../cuda_runtime.h"

inline float __shfl(float v, int src) { return ::gir_emu::shuffle(v, src); }
inline float __shfl_xor(float v, int mask) { return ::gir_emu::shuffle(v, (::gir_emu::current % ::gir_emu::kLanes) ^ mask); }
#define __builtin_amdgcn_fence(order, scope) ((void)0)
#define __builtin_amdgcn_wave_barrier() ::gir_emu::warpBarrier()

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
enum { hipSuccess = cudaSuccess, hipMemcpyHostToDevice = cudaMemcpyHostToDevice, hipMemcpyDeviceToHost = cudaMemcpyDeviceToHost };
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipMalloc cudaMalloc
#define hipMemset cudaMemset
#define hipMemcpy cudaMemcpy
#define hipFree cudaFree
#define hipStreamCreate cudaStreamCreate
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
