// Declarations of the f32 functions of libdevice (NVIDIA's bitcode math library, which nvcc links
// and inlines) that Triton kernels call through `tl.extra.cuda.libdevice` (tt.extern_elementwise
// with an empty libname): a generated kernel calls the same __nv_ function Triton's compiled kernel
// does, so it computes the same bits. Exactly the functions src/emit/libdevice.cpp accepts (a test
// checks the two lists agree); declarations only, never a definition.
#pragma once

extern "C" {
__device__ float __nv_acosf(float);
__device__ float __nv_acoshf(float);
__device__ float __nv_asinf(float);
__device__ float __nv_asinhf(float);
__device__ float __nv_atanf(float);
__device__ float __nv_atanhf(float);
__device__ float __nv_cbrtf(float);
__device__ float __nv_ceilf(float);
__device__ float __nv_cosf(float);
__device__ float __nv_coshf(float);
__device__ float __nv_cospif(float);
__device__ float __nv_erff(float);
__device__ float __nv_erfcf(float);
__device__ float __nv_erfinvf(float);
__device__ float __nv_erfcinvf(float);
__device__ float __nv_expf(float);
__device__ float __nv_exp2f(float);
__device__ float __nv_exp10f(float);
__device__ float __nv_expm1f(float);
__device__ float __nv_fabsf(float);
__device__ float __nv_floorf(float);
__device__ float __nv_lgammaf(float);
__device__ float __nv_logf(float);
__device__ float __nv_log10f(float);
__device__ float __nv_log1pf(float);
__device__ float __nv_log2f(float);
__device__ float __nv_logbf(float);
__device__ float __nv_nearbyintf(float);
__device__ float __nv_rcbrtf(float);
__device__ float __nv_rintf(float);
__device__ float __nv_roundf(float);
__device__ float __nv_rsqrtf(float);
__device__ float __nv_sinf(float);
__device__ float __nv_sinhf(float);
__device__ float __nv_sinpif(float);
__device__ float __nv_sqrtf(float);
__device__ float __nv_tanf(float);
__device__ float __nv_tanhf(float);
__device__ float __nv_tgammaf(float);
__device__ float __nv_truncf(float);
__device__ float __nv_j0f(float);
__device__ float __nv_j1f(float);
__device__ float __nv_y0f(float);
__device__ float __nv_y1f(float);
__device__ float __nv_normcdff(float);
__device__ float __nv_normcdfinvf(float);
__device__ float __nv_fast_cosf(float);
__device__ float __nv_fast_exp10f(float);
__device__ float __nv_fast_expf(float);
__device__ float __nv_fast_log10f(float);
__device__ float __nv_fast_log2f(float);
__device__ float __nv_fast_logf(float);
__device__ float __nv_fast_sinf(float);
__device__ float __nv_fast_tanf(float);
__device__ float __nv_saturatef(float);
__device__ float __nv_atan2f(float, float);
__device__ float __nv_copysignf(float, float);
__device__ float __nv_fdimf(float, float);
__device__ float __nv_fmaxf(float, float);
__device__ float __nv_fminf(float, float);
__device__ float __nv_fmodf(float, float);
__device__ float __nv_hypotf(float, float);
__device__ float __nv_nextafterf(float, float);
__device__ float __nv_powf(float, float);
__device__ float __nv_remainderf(float, float);
__device__ float __nv_fast_fdividef(float, float);
__device__ float __nv_fast_powf(float, float);
__device__ float __nv_fdiv_rn(float, float);
__device__ float __nv_fdiv_rz(float, float);
__device__ float __nv_fdiv_ru(float, float);
__device__ float __nv_fdiv_rd(float, float);
__device__ float __nv_fmul_rn(float, float);
__device__ float __nv_fadd_rn(float, float);
__device__ float __nv_fsub_rn(float, float);
__device__ float __nv_fmaf(float, float, float);
__device__ float __nv_fmaf_rn(float, float, float);
__device__ float __nv_fmaf_rz(float, float, float);
__device__ float __nv_fmaf_ru(float, float, float);
__device__ float __nv_fmaf_rd(float, float, float);
}
