// tt.extern_elementwise of libdevice (Triton's `tl.extra.cuda.libdevice`): the f32 functions the
// emitter lowers, called by their __nv_ names as runtime/sched2cu/libdevice.cuh declares them. Must
// list exactly that header's functions (test_values.cpp checks it) and never spell another.
#include "lower.h"

#include <map>

namespace sched2cu::emit {

const std::map<std::string, int>& libdevice_f32() {
  static const std::map<std::string, int> m = {
      {"__nv_acosf", 1},       {"__nv_acoshf", 1},      {"__nv_asinf", 1},
      {"__nv_asinhf", 1},      {"__nv_atan2f", 2},      {"__nv_atanf", 1},
      {"__nv_atanhf", 1},      {"__nv_cbrtf", 1},       {"__nv_ceilf", 1},
      {"__nv_copysignf", 2},   {"__nv_cosf", 1},        {"__nv_coshf", 1},
      {"__nv_cospif", 1},      {"__nv_erfcf", 1},       {"__nv_erfcinvf", 1},
      {"__nv_erff", 1},        {"__nv_erfinvf", 1},     {"__nv_exp10f", 1},
      {"__nv_exp2f", 1},       {"__nv_expf", 1},        {"__nv_expm1f", 1},
      {"__nv_fabsf", 1},       {"__nv_fadd_rn", 2},     {"__nv_fast_cosf", 1},
      {"__nv_fast_exp10f", 1}, {"__nv_fast_expf", 1},   {"__nv_fast_fdividef", 2},
      {"__nv_fast_log10f", 1}, {"__nv_fast_log2f", 1},  {"__nv_fast_logf", 1},
      {"__nv_fast_powf", 2},   {"__nv_fast_sinf", 1},   {"__nv_fast_tanf", 1},
      {"__nv_fdimf", 2},       {"__nv_fdiv_rd", 2},     {"__nv_fdiv_rn", 2},
      {"__nv_fdiv_ru", 2},     {"__nv_fdiv_rz", 2},     {"__nv_floorf", 1},
      {"__nv_fmaf", 3},        {"__nv_fmaf_rd", 3},     {"__nv_fmaf_rn", 3},
      {"__nv_fmaf_ru", 3},     {"__nv_fmaf_rz", 3},     {"__nv_fmaxf", 2},
      {"__nv_fminf", 2},       {"__nv_fmodf", 2},       {"__nv_fmul_rn", 2},
      {"__nv_fsub_rn", 2},     {"__nv_hypotf", 2},      {"__nv_j0f", 1},
      {"__nv_j1f", 1},         {"__nv_lgammaf", 1},     {"__nv_log10f", 1},
      {"__nv_log1pf", 1},      {"__nv_log2f", 1},       {"__nv_logbf", 1},
      {"__nv_logf", 1},        {"__nv_nearbyintf", 1},  {"__nv_nextafterf", 2},
      {"__nv_normcdff", 1},    {"__nv_normcdfinvf", 1}, {"__nv_powf", 2},
      {"__nv_rcbrtf", 1},      {"__nv_remainderf", 2},  {"__nv_rintf", 1},
      {"__nv_roundf", 1},      {"__nv_rsqrtf", 1},      {"__nv_saturatef", 1},
      {"__nv_sinf", 1},        {"__nv_sinhf", 1},       {"__nv_sinpif", 1},
      {"__nv_sqrtf", 1},       {"__nv_tanf", 1},        {"__nv_tanhf", 1},
      {"__nv_tgammaf", 1},     {"__nv_truncf", 1},      {"__nv_y0f", 1},
      {"__nv_y1f", 1},
  };
  return m;
}

}  // namespace sched2cu::emit
