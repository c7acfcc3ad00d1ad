#include "engine/session.h"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "engine/input_reader.h"

namespace twinmaf {

Session::Session(SessionConfig cfg, unsigned lanes) : cfg_(cfg), lanes_(std::max(1u, lanes)) {
  if (cfg_.subsample == 0) cfg_.subsample = 1;
}

Session::~Session() = default;

Status Session::add(const FeatureSpec& spec, const OptionDict& opts) {
  TWINMAF_ASSIGN_OR_RETURN(Options options, Options::parse(spec.name, spec.options, opts));
  std::string key = std::string(spec.name) + options.param_key();
  for (const Registered& r : lanes_[0].features)
    if (r.key == key) return ok_status();
  for (Lane& lane : lanes_) {
    TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(options));
    lane.features.push_back(Registered{&spec, options, key, std::move(ex)});
  }
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

Result<Backend> parse_backend(std::string_view text) {
  if (text == "cpu") return Backend::kCpu;
  if (text == "cuda") return Backend::kCuda;
  if (text == "auto") return Backend::kAuto;
  TWINMAF_FAIL(kInvalidArgument, "--backend: '{}' is not cpu, cuda or auto", text);
}

#if !TWINMAF_HAVE_CUDA
Status Session::assign_backends(const VideoFormat&, std::vector<std::string>*) {
  if (cfg_.backend == Backend::kCuda) TWINMAF_FAIL(kUnsupported, "--backend cuda: this build of twinmaf has no CUDA backend");
  return ok_status();
}

Status Session::run_cuda(VideoSource&, const std::vector<VideoSource*>&, const RunLimits&, int, RunReport&) {
  TWINMAF_FAIL(kInternal, "no CUDA backend in this build");
}
#endif

Status Session::run(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                    RunReport* report) {
  if (dis.size() != lanes_.size())
    TWINMAF_FAIL(kInternal, "session of {} lanes given {} distorted inputs", lanes_.size(), dis.size());
  for (VideoSource* d : dis) TWINMAF_RETURN_IF_ERROR(check_same_format(ref, *d));
  const VideoFormat fmt = ref.format();
  if (lanes_[0].features.empty()) TWINMAF_FAIL(kInvalidArgument, "no features or models to compute");
  RunReport local;
  RunReport& rep = report ? *report : local;

  bool chroma = false;
  int history = 0;
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) {
      TWINMAF_RETURN_IF_ERROR(r.extractor->init(fmt));
      chroma = chroma || r.extractor->reads_chroma();
      history = std::max(history, r.spec->history);
    }
  TWINMAF_RETURN_IF_ERROR(assign_backends(fmt, &rep.warnings));
  const int planes = chroma ? fmt.planes() : 1;
  ref.set_planes_needed(planes);
  TWINMAF_RETURN_IF_ERROR(ref.skip(limits.skip_ref));
  for (VideoSource* d : dis) {
    d->set_planes_needed(planes);
    TWINMAF_RETURN_IF_ERROR(d->skip(limits.skip_dis));
  }

  bool gpu = false;
  for (const Lane& lane : lanes_)
    for (const Registered& r : lane.features) gpu = gpu || r.twin != nullptr;
  TWINMAF_RETURN_IF_ERROR(gpu ? run_cuda(ref, dis, limits, history, rep) : run_cpu(ref, dis, limits, history, rep));
  if (rep.frames == 0) TWINMAF_FAIL(kBadInput, "no frames to score in {} and {}", ref.path(), dis[0]->path());
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) TWINMAF_RETURN_IF_ERROR(r.extractor->flush(lane.collector));
  return ok_status();
}

Status Session::compute_cpu(const FrameInput& in, unsigned lane, const FrameTermsList* lane0,
                            FrameTermsList& terms) const {
  const std::vector<Registered>& fs = lanes_[lane].features;
  terms.resize(fs.size());
  const bool sampled = in.index % cfg_.subsample == 0;
  for (size_t i = 0; i < fs.size(); ++i) {
    const Registered& r = fs[i];
    if (r.twin || (!sampled && !r.spec->every_frame)) continue;
    if (shared_with_lane0(lane, i)) {
      terms[i] = (*lane0)[i];
      continue;
    }
    std::shared_ptr<FrameTerms> t = r.extractor->make_terms();
    TWINMAF_RETURN_IF_ERROR(r.extractor->compute(in, *t));
    terms[i] = std::move(t);
  }
  return ok_status();
}

Status Session::finish_frame(unsigned index, unsigned lane, const FrameTermsList& terms) {
  Lane& l = lanes_[lane];
  for (size_t i = 0; i < l.features.size(); ++i)
    if (terms[i]) TWINMAF_RETURN_IF_ERROR(l.features[i].extractor->finish(index, *terms[i], l.collector));
  return ok_status();
}

namespace {

struct FrameWork {
  FrameSet set;
  PicturePtr prev, prev_prev;
  std::vector<Session::FrameTermsList> terms;  // per lane
  Status status;
};

}  // namespace

Status Session::run_cpu(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits, int history,
                        RunReport& rep) {
  const auto t0 = std::chrono::steady_clock::now();
  PicturePool pool(ref.format(), host_allocator());
  InputReader reader(ref, dis, limits.frame_cnt, pool, &rep.warnings);
  PicturePtr prev, prev_prev;
  Status read_error;
  // The next frame's work; null at the end or on a read error.
  auto read_next = [&]() -> std::unique_ptr<FrameWork> {
    auto w = std::make_unique<FrameWork>();
    auto got = reader.next(&w->set);
    if (!got.ok()) read_error = got.status();
    if (!got.ok() || !*got) return nullptr;
    if (history >= 1) w->prev = prev;
    if (history >= 2) w->prev_prev = prev_prev;
    prev_prev = std::move(prev);
    prev = w->set.ref;
    return w;
  };
  auto compute = [&](FrameWork& w) {
    w.terms.resize(lanes_.size());
    for (unsigned l = 0; l < lanes_.size() && w.status.ok(); ++l) {
      const FrameInput in{w.set.index, w.set.ref.get(), w.set.dis[l].get(), w.prev.get(), w.prev_prev.get()};
      w.status = compute_cpu(in, l, &w.terms[0], w.terms[l]);
    }
  };
  Status first_error;
  auto finish = [&](FrameWork& w) {
    if (!first_error.ok()) return;
    first_error = w.status;
    for (unsigned l = 0; l < lanes_.size() && first_error.ok(); ++l)
      first_error = finish_frame(w.set.index, l, w.terms[l]);
    if (first_error.ok()) ++rep.frames;
  };
  if (cfg_.threads == 0) {
    while (auto w = read_next()) {
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
          tbb::make_filter<void, FrameWork*>(tbb::filter_mode::serial_in_order,
                                             [&](tbb::flow_control& fc) -> FrameWork* {
                                               auto w = failed.load() ? nullptr : read_next();
                                               if (!w) fc.stop();
                                               return w.release();
                                             }) &
              tbb::make_filter<FrameWork*, FrameWork*>(tbb::filter_mode::parallel,
                                                       [&](FrameWork* w) {
                                                         compute(*w);
                                                         return w;
                                                       }) &
              tbb::make_filter<FrameWork*, void>(tbb::filter_mode::serial_in_order, [&](FrameWork* w) {
                std::unique_ptr<FrameWork> own(w);
                finish(*own);
                if (!first_error.ok()) failed.store(true);
              }));
    });
  }
  TWINMAF_RETURN_IF_ERROR(read_error);
  rep.loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return first_error;
}

}  // namespace twinmaf
