// The context of the C API (libvmaf/libvmaf.h) on twinmaf::Scorer: pictures
// copied into the scorer's pictures (or pushed from device memory), models
// registered and predicted through twinmaf::ModelHandle, scores read from
// the scorer's collector.
#include <cstring>

#include "capi/capi.h"

using twinmaf::capi::fail;
using twinmaf::capi::guarded;
using twinmaf::capi::live;

namespace twinmaf::capi {

namespace {

Result<Scorer*> scorer_of(VmafContext* v) {
  if (!v->scorer) {
    ScorerConfig cfg;
    cfg.threads = v->cfg.n_threads;
    cfg.subsample = v->cfg.n_subsample;
    cfg.backend = v->cuda && !v->cfg.gpumask ? Backend::kAuto : Backend::kCpu;
    cfg.gpu = v->cuda ? v->cuda->device : 0;
    cfg.cuda_context = v->cuda ? v->cuda->cu_ctx : nullptr;
    Result<std::unique_ptr<Scorer>> s = Scorer::create(std::move(cfg));
    if (!s.ok()) return s.status();
    v->scorer = std::move(*s);
  }
  return v->scorer.get();
}

bool skipped(const VmafContext* v, unsigned index) { return v->cfg.n_subsample > 1 && index % v->cfg.n_subsample; }

std::optional<Pooling> pooling_of(VmafPoolingMethod m) {
  switch (m) {
    case VMAF_POOL_METHOD_MIN: return Pooling::kMin;
    case VMAF_POOL_METHOD_MAX: return Pooling::kMax;
    case VMAF_POOL_METHOD_MEAN: return Pooling::kMean;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: return Pooling::kHarmonicMean;
    default: return std::nullopt;
  }
}

// Copies one picture of the opened format into a picture of the scorer's
// pool (plane sizes round down, as the scores read them).
Result<PicturePtr> host_copy(Scorer& s, const VmafRef& b) {
  Result<PicturePtr> made = s.new_picture();
  if (!made.ok()) return made.status();
  PicturePtr pic = std::move(*made);
  const Layout& l = b.layout;
  const size_t bytes_per_sample = l.bpc > 8 ? 2 : 1;
  for (int p = 0; p < l.planes(); ++p) {
    const uint8_t* src = b.base + l.offset[p];
    uint8_t* dst = pic->mutable_data(p);
    for (unsigned y = 0; y < l.h[p]; ++y)
      std::memcpy(dst + ptrdiff_t(y) * pic->stride(p), src + ptrdiff_t(y) * l.stride[p], l.w[p] * bytes_per_sample);
  }
  return pic;
}

DevicePlanes device_planes(const VmafRef& b) {
  DevicePlanes d;
  for (int p = 0; p < b.layout.planes(); ++p) {
    d.planes[p] = b.base + b.layout.offset[p];
    d.pitch[p] = static_cast<size_t>(b.layout.stride[p]);
  }
  return d;
}

Status read_pair(VmafContext* v, VmafRef* ref, VmafRef* dis) {
  Scorer& s = *v->scorer;
  if (ref->memory == Memory::kDevice)
    return device_memory().push(s, device_planes(*ref), device_planes(*dis), ref->cu_ctx);
  Result<PicturePtr> r = host_copy(s, *ref);
  if (!r.ok()) return r.status();
  Result<PicturePtr> d = host_copy(s, *dis);
  if (!d.ok()) return d.status();
  return s.push(std::move(*r), {std::move(*d)});
}

int flush(VmafContext* v) {
  if (!v->opened) {
    v->flushed = true;
    return 0;
  }
  const Status st = v->scorer->flush();
  if (!st.ok()) return fail("vmaf_read_pictures (flush)", st);
  v->flushed = true;
  return 0;
}

}  // namespace

}  // namespace twinmaf::capi

using namespace twinmaf;
using namespace twinmaf::capi;

VmafContext::~VmafContext() {
  scorer.reset();  // the frame loop may use the device buffers
  for (VmafRef* b : cuda_ring) {
    VmafPicture pic;
    expose(b, &pic);
    (void)unref(&pic);
  }
  if (cuda && --cuda->imports == 0 && live<VmafCudaState>().remove(cuda)) delete cuda;
}

extern "C" int vmaf_init(VmafContext** vmaf, VmafConfiguration cfg) {
  return guarded("vmaf_init", [&] {
    if (!vmaf) return -EINVAL;
    set_log_level(cfg.log_level);
    if (cfg.n_threads > kMaxThreads)
      return fail("vmaf_init", fmt::format("n_threads {} is above {}", cfg.n_threads, kMaxThreads));
    auto v = std::make_unique<VmafContext>();
    v->cfg = cfg;
    live<VmafContext>().add(v.get());
    *vmaf = v.release();
    return 0;
  });
}

extern "C" int vmaf_close(VmafContext* vmaf) {
  return guarded("vmaf_close", [&] {
    if (!live<VmafContext>().remove(vmaf)) return -EINVAL;
    {
      std::unique_lock lock(vmaf->idle_mutex);
      vmaf->idle.wait(lock, [&] { return vmaf->users.load() == 0; });
    }
    delete vmaf;
    return 0;
  });
}

extern "C" int vmaf_use_features_from_model(VmafContext* vmaf, VmafModel* model) {
  return guarded("vmaf_use_features_from_model", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModel>().contains(model)) return -EINVAL;
    if (vmaf->opened) return fail("vmaf_use_features_from_model", "features are registered before pictures are read");
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_use_features_from_model", s.status());
    const Status st = (*s)->use_model(model->model);
    return st.ok() ? 0 : fail("vmaf_use_features_from_model", st);
  });
}

extern "C" int vmaf_use_features_from_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection) {
  return guarded("vmaf_use_features_from_model_collection", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModelCollection>().contains(model_collection)) return -EINVAL;
    if (vmaf->opened)
      return fail("vmaf_use_features_from_model_collection", "features are registered before pictures are read");
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_use_features_from_model_collection", s.status());
    const Status st = (*s)->use_model(model_collection->members);
    return st.ok() ? 0 : fail("vmaf_use_features_from_model_collection", st);
  });
}

extern "C" int vmaf_use_feature(VmafContext* vmaf, const char* feature_name, VmafFeatureDictionary* opts_dict) {
  return guarded("vmaf_use_feature", [&] {
    const ContextUse use(vmaf);
    if (!use || !feature_name) return -EINVAL;
    if (opts_dict && !live<VmafFeatureDictionary>().contains(opts_dict)) return -EINVAL;
    if (vmaf->opened) return fail("vmaf_use_feature", "features are registered before pictures are read");
    if (!has_feature(feature_name))
      return fail("vmaf_use_feature", fmt::format("no feature extractor is named '{}'", feature_name));
    // libvmaf's ownership: a known extractor consumes the dictionary, even
    // when its options are then refused.
    OptionList options;
    if (opts_dict) {
      options = std::move(opts_dict->entries);
      (void)vmaf_feature_dictionary_free(&opts_dict);
    }
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_use_feature", s.status());
    const Status st = (*s)->use_feature(feature_name, options);
    return st.ok() ? 0 : fail("vmaf_use_feature", st);
  });
}

extern "C" int vmaf_import_feature_score(VmafContext* vmaf, const char* feature_name, double value, unsigned index) {
  return guarded("vmaf_import_feature_score", [&] {
    const ContextUse use(vmaf);
    if (!use || !feature_name) return -EINVAL;
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_import_feature_score", s.status());
    const Status st = (*s)->import_score(feature_name, index, value);
    return st.ok() ? 0 : fail("vmaf_import_feature_score", st);
  });
}

extern "C" int vmaf_read_pictures(VmafContext* vmaf, VmafPicture* ref, VmafPicture* dist, unsigned index) {
  return guarded("vmaf_read_pictures", [&] {
    constexpr std::string_view kWhere = "vmaf_read_pictures";
    const ContextUse use(vmaf);
    if (!use) return -EINVAL;
    if (vmaf->flushed) return fail(kWhere, "the context was flushed");
    if (!ref != !dist) return fail(kWhere, "one picture is NULL (both NULL flush)");
    if (!ref) return flush(vmaf);
    VmafRef* r = buffer_of(ref);
    VmafRef* d = buffer_of(dist);
    if (!r || !d) return fail(kWhere, "a picture was not allocated by this library, or was changed");
    if (r == d) return fail(kWhere, "the reference and the distorted picture are one buffer");
    const VideoFormat f = video_format(r->layout);
    if (!(video_format(d->layout) == f) || (vmaf->opened && !(vmaf->format == f)))
      return fail(kWhere, fmt::format("picture {}: the pictures differ in size, pixel format or bit depth", index));
    if ((r->memory == Memory::kDevice) != (d->memory == Memory::kDevice))
      return fail(kWhere, "one picture is in device memory, the other in host memory");
    if (index != vmaf->read)
      return fail(kWhere, fmt::format("picture index {}: pictures are read in order, {} expected", index, vmaf->read));
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail(kWhere, s.status());
    if (!vmaf->opened) {
      const Status st = (*s)->open(f);
      if (!st.ok()) return fail(kWhere, st);
      vmaf->opened = true;
      vmaf->format = f;
    }
    const Status st = read_pair(vmaf, r, d);
    if (!st.ok()) return fail(kWhere, st);
    ++vmaf->read;
    (void)unref(ref);
    (void)unref(dist);
    return 0;
  });
}

extern "C" int vmaf_score_at_index(VmafContext* vmaf, VmafModel* model, double* score, unsigned index) {
  return guarded("vmaf_score_at_index", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModel>().contains(model) || !score) return -EINVAL;
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_score_at_index", s.status());
    const Result<double> v = (*s)->predict(model->model, index);
    if (!v.ok()) return fail("vmaf_score_at_index", v.status());
    *score = *v;
    return 0;
  });
}

extern "C" int vmaf_score_at_index_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                                    VmafModelCollectionScore* score, unsigned index) {
  return guarded("vmaf_score_at_index_model_collection", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModelCollection>().contains(model_collection) || !score) return -EINVAL;
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_score_at_index_model_collection", s.status());
    const Result<CollectionScore> v = (*s)->predict_collection(model_collection->members, index);
    if (!v.ok()) return fail("vmaf_score_at_index_model_collection", v.status());
    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    score->bootstrap.bagging_score = v->bagging;
    score->bootstrap.stddev = v->stddev;
    score->bootstrap.ci.p95.lo = v->ci_p95_lo;
    score->bootstrap.ci.p95.hi = v->ci_p95_hi;
    return 0;
  });
}

extern "C" int vmaf_feature_score_at_index(VmafContext* vmaf, const char* feature_name, double* score,
                                           unsigned index) {
  return guarded("vmaf_feature_score_at_index", [&] {
    const ContextUse use(vmaf);
    if (!use || !feature_name || !score) return -EINVAL;
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail("vmaf_feature_score_at_index", s.status());
    const std::optional<double> v = (*s)->stored_score(feature_name, index);
    if (!v) {
      twinmaf::capi::log(VMAF_LOG_LEVEL_DEBUG,
                         fmt::format("vmaf_feature_score_at_index: no '{}' at index {}", feature_name, index));
      return -EINVAL;
    }
    *score = *v;
    return 0;
  });
}

namespace {

// vmaf_feature_score_pooled's body (the name checked by the caller).
int pooled(VmafContext* vmaf, std::string_view where, const std::string& name, VmafPoolingMethod method,
           double* score, unsigned lo, unsigned hi) {
  const std::optional<Pooling> p = pooling_of(method);
  if (!p) return fail(where, fmt::format("pool method {} is not one of 1..4", static_cast<int>(method)));
  auto s = scorer_of(vmaf);
  if (!s.ok()) return fail(where, s.status());
  const Result<double> v = (*s)->stored_pooled(name, *p, lo, hi);
  if (!v.ok()) return fail(where, v.status());
  *score = *v;
  return 0;
}

// Calls predict(i) for every index lo..hi the subsample keeps.
template <typename F>
int for_each_index(const VmafContext* vmaf, unsigned lo, unsigned hi, F&& predict) {
  for (unsigned i = lo;; ++i) {
    if (!skipped(vmaf, i))
      if (const int err = predict(i)) return err;
    if (i == hi) return 0;
  }
}

}  // namespace

extern "C" int vmaf_feature_score_pooled(VmafContext* vmaf, const char* feature_name,
                                         VmafPoolingMethod pool_method, double* score, unsigned index_low,
                                         unsigned index_high) {
  return guarded("vmaf_feature_score_pooled", [&] {
    const ContextUse use(vmaf);
    if (!use || !feature_name || !score || index_low > index_high) return -EINVAL;
    return pooled(vmaf, "vmaf_feature_score_pooled", feature_name, pool_method, score, index_low, index_high);
  });
}

extern "C" int vmaf_score_pooled(VmafContext* vmaf, VmafModel* model, VmafPoolingMethod pool_method,
                                 double* score, unsigned index_low, unsigned index_high) {
  return guarded("vmaf_score_pooled", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModel>().contains(model) || !score || index_low > index_high) return -EINVAL;
    if (!pooling_of(pool_method)) return -EINVAL;
    const int err = for_each_index(vmaf, index_low, index_high, [&](unsigned i) {
      double ignored;
      return vmaf_score_at_index(vmaf, model, &ignored, i);
    });
    if (err) return err;
    return pooled(vmaf, "vmaf_score_pooled", model->model.name(), pool_method, score, index_low, index_high);
  });
}

extern "C" int vmaf_score_pooled_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                                  VmafPoolingMethod pool_method, VmafModelCollectionScore* score,
                                                  unsigned index_low, unsigned index_high) {
  return guarded("vmaf_score_pooled_model_collection", [&] {
    const ContextUse use(vmaf);
    if (!use || !live<VmafModelCollection>().contains(model_collection) || !score ||
        index_low > index_high)
      return -EINVAL;
    if (!pooling_of(pool_method)) return -EINVAL;
    const int err = for_each_index(vmaf, index_low, index_high, [&](unsigned i) {
      VmafModelCollectionScore ignored;
      return vmaf_score_at_index_model_collection(vmaf, model_collection, &ignored, i);
    });
    if (err) return err;
    constexpr std::string_view kWhere = "vmaf_score_pooled_model_collection";
    const std::string& n = model_collection->members.name();
    VmafModelCollectionScore out{};
    out.type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    for (const auto& [suffix, dst] : {std::pair{"_bagging", &out.bootstrap.bagging_score},
                                      std::pair{"_stddev", &out.bootstrap.stddev},
                                      std::pair{"_ci_p95_lo", &out.bootstrap.ci.p95.lo},
                                      std::pair{"_ci_p95_hi", &out.bootstrap.ci.p95.hi}})
      if (const int e = pooled(vmaf, kWhere, n + suffix, pool_method, dst, index_low, index_high)) return e;
    *score = out;
    return 0;
  });
}

extern "C" int vmaf_preallocate_pictures(VmafContext* vmaf, VmafPictureConfiguration cfg) {
  return guarded("vmaf_preallocate_pictures", [&] {
    constexpr std::string_view kWhere = "vmaf_preallocate_pictures";
    const ContextUse use(vmaf);
    if (!use) return -EINVAL;
    if (vmaf->pool) return fail(kWhere, "the context has a picture pool already");
    if (!cfg.pic_cnt) return fail(kWhere, "pic_cnt is 0");
    const auto layout = picture_layout(cfg.pic_params.pix_fmt, cfg.pic_params.bpc, cfg.pic_params.w, cfg.pic_params.h);
    if (!layout.ok()) return fail(kWhere, layout.status());
    auto pool = PicturePool::create(*layout, cfg.pic_cnt);
    if (!pool.ok()) {
      twinmaf::capi::log(VMAF_LOG_LEVEL_ERROR, fmt::format("{}: {}", kWhere, pool.status().message()));
      return -ENOMEM;
    }
    vmaf->pool = std::move(*pool);
    return 0;
  });
}

extern "C" int vmaf_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
  return guarded("vmaf_fetch_preallocated_picture", [&] {
    const ContextUse use(vmaf);
    if (!use || !pic) return -EINVAL;
    if (!vmaf->pool) return fail("vmaf_fetch_preallocated_picture", "no picture pool (vmaf_preallocate_pictures)");
    vmaf->pool->fetch(pic);
    return 0;
  });
}

extern "C" int vmaf_write_output(VmafContext* vmaf, const char* output_path, VmafOutputFormat out_format) {
  return guarded("vmaf_write_output", [&] {
    constexpr std::string_view kWhere = "vmaf_write_output";
    const ContextUse use(vmaf);
    if (!use || !output_path) return -EINVAL;
    static constexpr OutputFormat kFormats[] = {OutputFormat::kXml, OutputFormat::kXml, OutputFormat::kJson,
                                                OutputFormat::kCsv, OutputFormat::kSub};
    if (out_format < VMAF_OUTPUT_FORMAT_XML || out_format > VMAF_OUTPUT_FORMAT_SUB)
      return fail(kWhere, fmt::format("output format {} is not one of 1..4", static_cast<int>(out_format)));
    auto s = scorer_of(vmaf);
    if (!s.ok()) return fail(kWhere, s.status());
    const Status st = (*s)->write(output_path, kFormats[out_format]);
    return st.ok() ? 0 : fail(kWhere, st);
  });
}

extern "C" const char* vmaf_version(void) {
  static const std::string v = std::string("twinmaf-") + twinmaf::version();
  return v.c_str();
}
