// Option rows that several features declare identically (name, alias, type,
// default, range, feature-param flag and help), written once. Each is a row of
// any parameter struct P with the member it names; a feature's table lists
// them in its own (libvmaf's) order.
//
// Rows that share a name but differ elsewhere stay with their feature: adm
// and float_adm differ in every adm_* help text (and in adm_csf_mode's range
// and adm_ref_display_height's alias), vif and float_vif in every help text,
// motion_fps_weight in its help between motion and float_motion.
#pragma once

#include "core/option_table.h"

namespace twinmaf {

// adm, vif.
template <class P>
Opt<P, bool> debug_output_row() {
  return {&P::debug, {.name = "debug", .default_value = false, .help = "debug mode: enable additional output"}};
}

// motion, motion_v2, float_motion.
template <class P>
Opt<P, bool> motion_force_zero_row() {
  return {&P::force_zero, {.name = "motion_force_zero", .alias = "force_0", .default_value = false,
                           .feature_param = true, .help = "write 0 for every motion score"}};
}
template <class P>
Opt<P, double> motion_blend_factor_row() {
  return {&P::blend_factor, {.name = "motion_blend_factor", .alias = "mbf", .default_value = 1.0, .min = 0.0,
                             .max = 1.0, .feature_param = true,
                             .help = "weight of the unclipped score in the motion3 blend"}};
}
template <class P>
Opt<P, double> motion_blend_offset_row() {
  return {&P::blend_offset, {.name = "motion_blend_offset", .alias = "mbo", .default_value = 40.0, .min = 0.0,
                             .max = 1000.0, .feature_param = true,
                             .help = "level above which the motion3 blend limits the score"}};
}
template <class P>
Opt<P, double> motion_max_val_row() {
  return {&P::max_val, {.name = "motion_max_val", .alias = "mmxv", .default_value = 10000.0, .min = 0.0, .max = 10000.0,
                        .feature_param = true, .help = "upper clip for the motion scores"}};
}

}  // namespace twinmaf
