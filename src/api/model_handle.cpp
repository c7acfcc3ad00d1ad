// twinmaf::ModelHandle (include/twinmaf/twinmaf.h): models loaded apart from
// a Scorer, as libvmaf's C API loads them.
#include "api/feature_text.h"
#include "api/scorer_impl.h"
#include "features/feature.h"

namespace twinmaf {

namespace {

using Impl = ModelHandle::Impl;
using Part = Impl::Part;

Result<LoadedModel> load_any(std::string_view version, const std::string* path, const ModelOptions& options) {
  if (options.name.empty()) TWINMAF_FAIL(kInvalidArgument, "a model needs a name");
  ModelConfig cfg;
  cfg.name = options.name;
  if (options.disable_clip) cfg.flags |= kModelFlagDisableClip;
  if (options.enable_transform) cfg.flags |= kModelFlagEnableTransform;
  return path ? LoadedModel::from_file(*path, cfg) : LoadedModel::from_version(version, cfg);
}

std::shared_ptr<Impl> part_of(LoadedModel model, Part part) {
  auto impl = std::make_shared<Impl>(Impl{std::move(model), part, {}, {}});
  impl->bind();
  return impl;
}

Result<ModelHandle> single(Result<LoadedModel> loaded) {
  if (!loaded.ok()) return loaded.status();
  if (loaded->is_collection())
    TWINMAF_FAIL(kInvalidArgument, "model {}: a model collection, to be loaded as one", loaded->label());
  return ModelHandle(part_of(std::move(*loaded), Part::kModel));
}

Result<std::pair<ModelHandle, ModelHandle>> collection(Result<LoadedModel> loaded) {
  if (!loaded.ok()) return loaded.status();
  if (!loaded->is_collection()) TWINMAF_FAIL(kInvalidArgument, "model {}: not a model collection", loaded->label());
  // Each part owns a copy: overloading one leaves the other as it was.
  ModelHandle main(part_of(*loaded, Part::kMain));
  return std::pair{std::move(main), ModelHandle(part_of(std::move(*loaded), Part::kMembers))};
}

}  // namespace

void Impl::bind() {
  Result<std::vector<FeatureUse>> all = model.bind(registry_provider);
  uses.clear();
  bound = all.status();
  if (!all.ok()) return;
  // LoadedModel::bind lists a collection's members first, then the main model.
  const size_t split = all->size() - model.main().features().size();
  const size_t begin = part == Part::kMain ? split : 0;
  const size_t end = part == Part::kMembers ? split : all->size();
  for (size_t i = begin; i < end; ++i) uses.push_back(std::move((*all)[i]));
}

ModelHandle::ModelHandle(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<ModelHandle> ModelHandle::load(std::string_view version, const ModelOptions& options) {
  return single(load_any(version, nullptr, options));
}

Result<ModelHandle> ModelHandle::load_file(const std::string& path, const ModelOptions& options) {
  return single(load_any({}, &path, options));
}

Result<std::pair<ModelHandle, ModelHandle>> ModelHandle::load_collection(std::string_view version,
                                                                         const ModelOptions& options) {
  return collection(load_any(version, nullptr, options));
}

Result<std::pair<ModelHandle, ModelHandle>> ModelHandle::load_collection_file(const std::string& path,
                                                                              const ModelOptions& options) {
  return collection(load_any({}, &path, options));
}

const std::string& ModelHandle::name() const { return impl_->name(); }

bool ModelHandle::is_collection() const { return impl_->part == Part::kMembers; }

Status ModelHandle::overload(std::string_view extractor, const OptionList& options) {
  impl_->model.overload(extractor, option_dict(options), registry_provider);
  impl_->bind();
  return ok_status();
}

}  // namespace twinmaf
