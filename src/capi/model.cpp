// Models and model collections of the C API (libvmaf/model.h) on
// twinmaf::ModelHandle.
#include "capi/capi.h"

using namespace twinmaf;
using namespace twinmaf::capi;

namespace {

ModelOptions options_of(const VmafModelConfig& cfg) {
  ModelOptions o;
  if (cfg.name) o.name = cfg.name;
  o.disable_clip = cfg.flags & VMAF_MODEL_FLAG_DISABLE_CLIP;
  o.enable_transform = cfg.flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM;
  return o;
}

int give_model(std::string_view where, Result<ModelHandle> loaded, VmafModel** model) {
  if (!loaded.ok()) return fail(where, loaded.status());
  auto m = std::make_unique<VmafModel>(VmafModel{std::move(*loaded)});
  live<VmafModel>().add(m.get());
  *model = m.release();
  return 0;
}

int give_collection(std::string_view where, Result<std::pair<ModelHandle, ModelHandle>> loaded, VmafModel** model,
                    VmafModelCollection** collection) {
  if (!loaded.ok()) return fail(where, loaded.status());
  auto m = std::make_unique<VmafModel>(VmafModel{std::move(loaded->first)});
  auto c = std::make_unique<VmafModelCollection>(VmafModelCollection{std::move(loaded->second)});
  live<VmafModel>().add(m.get());
  live<VmafModelCollection>().add(c.get());
  *model = m.release();
  *collection = c.release();
  return 0;
}

}  // namespace

extern "C" int vmaf_model_load(VmafModel** model, VmafModelConfig* cfg, const char* version) {
  return guarded("vmaf_model_load", [&] {
    if (!model || !cfg || !version) return -EINVAL;
    return give_model("vmaf_model_load", ModelHandle::load(version, options_of(*cfg)), model);
  });
}

extern "C" int vmaf_model_load_from_path(VmafModel** model, VmafModelConfig* cfg, const char* path) {
  return guarded("vmaf_model_load_from_path", [&] {
    if (!model || !cfg || !path) return -EINVAL;
    return give_model("vmaf_model_load_from_path", ModelHandle::load_file(path, options_of(*cfg)), model);
  });
}

extern "C" int vmaf_model_feature_overload(VmafModel* model, const char* feature_name,
                                           VmafFeatureDictionary* opts_dict) {
  return guarded("vmaf_model_feature_overload", [&] {
    if (!live<VmafModel>().contains(model) || !feature_name || !live<VmafFeatureDictionary>().contains(opts_dict))
      return -EINVAL;
    const Status st = model->model.overload(feature_name, opts_dict->entries);
    (void)vmaf_feature_dictionary_free(&opts_dict);
    return st.ok() ? 0 : fail("vmaf_model_feature_overload", st);
  });
}

extern "C" void vmaf_model_destroy(VmafModel* model) {
  (void)guarded("vmaf_model_destroy", [&] {
    if (live<VmafModel>().remove(model)) delete model;
    return 0;
  });
}

extern "C" int vmaf_model_collection_load(VmafModel** model, VmafModelCollection** model_collection,
                                          VmafModelConfig* cfg, const char* version) {
  return guarded("vmaf_model_collection_load", [&] {
    if (!model || !model_collection || !cfg || !version) return -EINVAL;
    return give_collection("vmaf_model_collection_load", ModelHandle::load_collection(version, options_of(*cfg)),
                           model, model_collection);
  });
}

extern "C" int vmaf_model_collection_load_from_path(VmafModel** model, VmafModelCollection** model_collection,
                                                    VmafModelConfig* cfg, const char* path) {
  return guarded("vmaf_model_collection_load_from_path", [&] {
    if (!model || !model_collection || !cfg || !path) return -EINVAL;
    return give_collection("vmaf_model_collection_load_from_path",
                           ModelHandle::load_collection_file(path, options_of(*cfg)), model, model_collection);
  });
}

extern "C" int vmaf_model_collection_feature_overload(VmafModel* model, VmafModelCollection** model_collection,
                                                      const char* feature_name, VmafFeatureDictionary* opts_dict) {
  return guarded("vmaf_model_collection_feature_overload", [&] {
    if (!model_collection || !live<VmafModelCollection>().contains(*model_collection) ||
        !live<VmafModel>().contains(model) || !feature_name || !live<VmafFeatureDictionary>().contains(opts_dict))
      return -EINVAL;
    Status st = (*model_collection)->members.overload(feature_name, opts_dict->entries);
    if (st.ok()) st = model->model.overload(feature_name, opts_dict->entries);
    (void)vmaf_feature_dictionary_free(&opts_dict);
    return st.ok() ? 0 : fail("vmaf_model_collection_feature_overload", st);
  });
}

extern "C" void vmaf_model_collection_destroy(VmafModelCollection* model_collection) {
  (void)guarded("vmaf_model_collection_destroy", [&] {
    if (live<VmafModelCollection>().remove(model_collection)) delete model_collection;
    return 0;
  });
}
