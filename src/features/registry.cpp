#include "features/feature.h"
#include "features/adm/adm.h"
#include "features/cambi/cambi.h"
#include "features/ciede/ciede.h"
#include "features/float_adm/float_adm.h"
#include "features/float_ansnr/float_ansnr.h"
#include "features/float_moment/float_moment.h"
#include "features/float_motion/float_motion.h"
#include "features/float_psnr/float_psnr.h"
#include "features/float_vif/float_vif.h"
#include "features/motion/motion.h"
#include "features/psnr/psnr.h"
#include "features/psnr_hvs/psnr_hvs.h"
#include "features/speed/speed.h"
#include "features/ssim/ssim.h"
#include "features/vif/vif.h"

namespace twinmaf {

int plane_count(Planes p, const VideoFormat& fmt) {
  switch (p) {
    case Planes::kNone: return 0;
    case Planes::kLuma: return 1;
    case Planes::kAll: return fmt.planes();
  }
  return 0;
}

const std::vector<const FeatureSpec*>& feature_registry() {
  // libvmaf's registry order (feature/feature_extractor.c): the first feature
  // providing a name wins a model's lookup.
  static const std::vector<const FeatureSpec*> registry = {
      &float_psnr_feature_spec(),
      &float_ansnr_feature_spec(),
      &float_adm_feature_spec(),
      &float_vif_feature_spec(),
      &float_motion_feature_spec(),
      &float_moment_feature_spec(),
      &speed_chroma_feature_spec(),
      &speed_temporal_feature_spec(),
      &float_ms_ssim_feature_spec(),
      &float_ssim_feature_spec(),
      &ciede_feature_spec(),
      &psnr_feature_spec(),
      &psnr_hvs_feature_spec(),
      &adm_feature_spec(),
      &motion_feature_spec(),
      &motion_v2_feature_spec(),
      &vif_feature_spec(),
      &cambi_feature_spec(),
  };
  return registry;
}

const FeatureSpec* find_feature(std::string_view name) {
  for (const FeatureSpec* f : feature_registry())
    if (f->name == name) return f;
  return nullptr;
}

const FeatureSpec* find_feature_providing(std::string_view provided_name) {
  for (const FeatureSpec* f : feature_registry())
    for (std::string_view p : f->provided)
      if (p == provided_name) return f;
  return nullptr;
}

std::optional<ExtractorRef> registry_provider(std::string_view provided_name) {
  const FeatureSpec* f = find_feature_providing(provided_name);
  if (!f) return std::nullopt;
  return ExtractorRef{f->name, &f->options};
}

}  // namespace twinmaf
