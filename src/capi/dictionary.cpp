// vmaf_feature_dictionary_set / _free (libvmaf/feature.h). Texts are kept as
// given; the C++ API normalises them as libvmaf's dictionary does when the
// dictionary is used (twinmaf::OptionList).
#include "capi/capi.h"

using twinmaf::capi::guarded;
using twinmaf::capi::live;

extern "C" int vmaf_feature_dictionary_set(VmafFeatureDictionary** dict, const char* key, const char* val) {
  return guarded("vmaf_feature_dictionary_set", [&] {
    if (!dict || !key || !val) return -EINVAL;
    if (*dict && !live<VmafFeatureDictionary>().contains(*dict)) return -EINVAL;
    if (!*dict) {
      auto d = std::make_unique<VmafFeatureDictionary>();
      live<VmafFeatureDictionary>().add(d.get());
      *dict = d.release();
    }
    for (auto& [k, v] : (*dict)->entries)
      if (k == key) {
        v = val;
        return 0;
      }
    (*dict)->entries.emplace_back(key, val);
    return 0;
  });
}

extern "C" int vmaf_feature_dictionary_free(VmafFeatureDictionary** dict) {
  return guarded("vmaf_feature_dictionary_free", [&] {
    if (!dict) return -EINVAL;
    if (!*dict) return 0;
    if (!live<VmafFeatureDictionary>().remove(*dict)) return -EINVAL;
    delete *dict;
    *dict = nullptr;
    return 0;
  });
}
