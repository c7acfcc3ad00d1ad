// adm CSF factors: the per-scale, per-orientation contrast-sensitivity weights
// that scale the DWT bands before masking (libvmaf f85a8536,
// feature/integer_adm.c dwt_quant_step, feature/barten_csf_tools.h).
//
// Every factor is a float computed once per session on the host, in libvmaf's
// exact operation order and types (float vs double at each step, glibc libm),
// so the fixed-point constants derived from it are bit-identical:
// - Watson97 (mode 0): 1 / Q(lambda, theta), Q from Watson et al. 1997
//   formula (9) with the 7-9 biorthogonal basis amplitudes (Table V).
// - Barten (mode 1): HDR-VDP-2's simplified Barten CSF at 100 cd/m2, times
//   adm_csf_scale (h/v) or adm_csf_diag_scale (diagonal).
// - Barten-Watson blend (modes 2 and 3): fixed tables per (display height,
//   viewing distance); mode 3 uses the "MAE" tables. libvmaf matches
//   (rdh, nvd) with exact == and silently yields -22.0 for any other pair;
//   here that is an init error (see adm_blend_supported).
#pragma once

#include <array>

namespace twinmaf {

enum class AdmCsfMode : int { kWatson97 = 0, kBarten = 1, kBlend = 2, kBlendMae = 3 };

// Factors {h/v, diagonal} of scale `lambda` (0 finest .. 3). For the blend
// modes the (rdh, nvd) pair must satisfy adm_blend_supported.
std::array<float, 2> adm_csf_factors(AdmCsfMode mode, int lambda, double norm_view_dist,
                                     int ref_display_height, double csf_scale,
                                     double csf_diag_scale);

// Whether libvmaf has blend tables for this (rdh, nvd) pair.
bool adm_blend_supported(double norm_view_dist, int ref_display_height);

// Human-readable list of the supported (rdh, nvd) pairs, for error messages.
const char* adm_blend_supported_list();

}  // namespace twinmaf
