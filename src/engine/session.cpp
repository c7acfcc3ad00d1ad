#include "engine/session.h"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>

namespace twinmaf {

Session::Session(SessionConfig cfg) : cfg_(cfg) {
  if (cfg_.subsample == 0) cfg_.subsample = 1;
}

Session::~Session() = default;

Status Session::add(const FeatureSpec& spec, const OptionDict& opts) {
  TWINMAF_ASSIGN_OR_RETURN(Options options, Options::parse(spec.name, spec.options, opts));
  std::string key = std::string(spec.name) + options.param_key();
  for (const Registered& r : features_)
    if (r.key == key) return ok_status();
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(options));
  features_.push_back(Registered{&spec, std::move(options), std::move(key), std::move(ex)});
  return ok_status();
}

Status Session::use_feature(std::string_view name, const OptionDict& opts) {
  const FeatureSpec* spec = find_feature(name);
  if (!spec) {
    std::string names;
    for (const FeatureSpec* f : feature_registry())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", f->name);
    TWINMAF_FAIL(kInvalidArgument, "unknown feature '{}' (available: {})", name, names);
  }
  return add(*spec, opts);
}

Status Session::use_feature_providing(std::string_view provided_name, const OptionDict& opts) {
  const FeatureSpec* spec = find_feature_providing(provided_name);
  if (!spec) TWINMAF_FAIL(kUnsupported, "no feature extractor provides '{}'", provided_name);
  return add(*spec, opts);
}

Status check_same_format(const VideoSource& ref, const VideoSource& dis) {
  const VideoFormat& a = ref.format();
  const VideoFormat& b = dis.format();
  if (a.w != b.w || a.h != b.h)
    TWINMAF_FAIL(kBadInput, "dimensions do not match: {} is {}x{}, {} is {}x{}", ref.path(), a.w, a.h,
                 dis.path(), b.w, b.h);
  if (a.fmt != b.fmt)
    TWINMAF_FAIL(kBadInput, "pixel formats do not match: {} is {}, {} is {}", ref.path(),
                 pix_fmt_name(a.fmt), dis.path(), pix_fmt_name(b.fmt));
  if (a.bpc != b.bpc)
    TWINMAF_FAIL(kBadInput, "bit depths do not match: {} is {}-bit, {} is {}-bit", ref.path(), a.bpc,
                 dis.path(), b.bpc);
  return ok_status();
}

namespace {

struct FrameWork {
  unsigned index = 0;
  PicturePtr ref, dis, prev, prev_prev;
  std::vector<std::unique_ptr<FrameTerms>> terms;  // null: not computed for this frame
  Status status;
};

}  // namespace

Status Session::run(VideoSource& ref, VideoSource& dis, const RunLimits& limits, RunReport* report) {
  TWINMAF_RETURN_IF_ERROR(check_same_format(ref, dis));
  const VideoFormat fmt = ref.format();
  if (features_.empty()) TWINMAF_FAIL(kInvalidArgument, "no features or models to compute");

  bool chroma = false;
  int history = 0;
  for (Registered& r : features_) {
    TWINMAF_RETURN_IF_ERROR(r.extractor->init(fmt));
    chroma = chroma || r.extractor->reads_chroma();
    history = std::max(history, r.spec->history);
  }
  const int planes = chroma ? fmt.planes() : 1;
  ref.set_planes_needed(planes);
  dis.set_planes_needed(planes);

  TWINMAF_RETURN_IF_ERROR(ref.skip(limits.skip_ref));
  TWINMAF_RETURN_IF_ERROR(dis.skip(limits.skip_dis));

  PicturePool pool(fmt, host_allocator());
  PicturePtr prev, prev_prev;
  unsigned next_index = 0;
  bool done = false;
  RunReport local;
  RunReport& rep = report ? *report : local;

  // Reads the next pair; null at the end (or on error, recorded in `status`).
  auto read_next = [&](Status* status) -> std::unique_ptr<FrameWork> {
    if (done || (limits.frame_cnt && next_index >= limits.frame_cnt)) return nullptr;
    auto w = std::make_unique<FrameWork>();
    w->ref = pool.acquire();
    w->dis = pool.acquire();
    auto r1 = ref.read(*w->ref);
    auto r2 = dis.read(*w->dis);
    if (!r1.ok() || !r2.ok()) {
      *status = !r1.ok() ? r1.status() : r2.status();
      done = true;
      return nullptr;
    }
    if (!*r1 || !*r2) {
      if (*r1 != *r2) {
        const VideoSource& ended = *r1 ? dis : ref;
        const VideoSource& other = *r1 ? ref : dis;
        rep.warnings.push_back(fmt::format("\"{}\" ended before \"{}\"; scored the first {} frames",
                                           ended.path(), other.path(), next_index));
      }
      done = true;
      return nullptr;
    }
    w->index = next_index++;
    if (history >= 1) w->prev = prev;
    if (history >= 2) w->prev_prev = prev_prev;
    prev_prev = std::move(prev);
    prev = w->ref;
    return w;
  };

  auto compute = [&](FrameWork& w) {
    FrameInput in{w.index, w.ref.get(), w.dis.get(), w.prev.get(), w.prev_prev.get()};
    w.terms.resize(features_.size());
    const bool sampled = w.index % cfg_.subsample == 0;
    for (size_t i = 0; i < features_.size(); ++i) {
      const Registered& r = features_[i];
      if (!sampled && !r.spec->every_frame) continue;
      auto t = r.extractor->make_terms();
      w.status = r.extractor->compute(in, *t);
      if (!w.status.ok()) return;
      w.terms[i] = std::move(t);
    }
  };

  Status first_error;
  auto finish = [&](FrameWork& w) {
    if (!first_error.ok()) return;
    if (!w.status.ok()) {
      first_error = w.status;
      return;
    }
    for (size_t i = 0; i < features_.size(); ++i) {
      if (!w.terms[i]) continue;
      Status s = features_[i].extractor->finish(w.index, *w.terms[i], collector_);
      if (!s.ok()) {
        first_error = s;
        return;
      }
    }
    ++rep.frames;
  };

  Status read_error;
  if (cfg_.threads == 0) {
    while (auto w = read_next(&read_error)) {
      compute(*w);
      finish(*w);
      if (!first_error.ok()) break;
    }
  } else {
    std::atomic<bool> failed{false};
    tbb::task_arena arena(static_cast<int>(cfg_.threads));
    arena.execute([&] {
      tbb::parallel_pipeline(
          2 * cfg_.threads + 2,
          tbb::make_filter<void, FrameWork*>(
              tbb::filter_mode::serial_in_order,
              [&](tbb::flow_control& fc) -> FrameWork* {
                if (failed.load()) {
                  fc.stop();
                  return nullptr;
                }
                auto w = read_next(&read_error);
                if (!w) {
                  fc.stop();
                  return nullptr;
                }
                return w.release();
              }) &
              tbb::make_filter<FrameWork*, FrameWork*>(tbb::filter_mode::parallel,
                                                       [&](FrameWork* w) {
                                                         compute(*w);
                                                         return w;
                                                       }) &
              tbb::make_filter<FrameWork*, void>(tbb::filter_mode::serial_in_order,
                                                 [&](FrameWork* w) {
                                                   std::unique_ptr<FrameWork> own(w);
                                                   finish(*own);
                                                   if (!first_error.ok()) failed.store(true);
                                                 }));
    });
  }
  TWINMAF_RETURN_IF_ERROR(read_error);
  TWINMAF_RETURN_IF_ERROR(first_error);
  if (rep.frames == 0) TWINMAF_FAIL(kBadInput, "no frames to score in {} and {}", ref.path(), dis.path());
  for (Registered& r : features_) TWINMAF_RETURN_IF_ERROR(r.extractor->flush(collector_));
  return ok_status();
}

}  // namespace twinmaf
