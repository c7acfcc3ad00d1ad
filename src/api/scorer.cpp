// twinmaf::Scorer (include/twinmaf/twinmaf.h) on the engine's Session: models
// bound to the registry, inputs opened or pushed, predictions after the run,
// results read from the collectors.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <new>

#include <nlohmann/json.hpp>

#include "api/feature_text.h"
#include "api/scorer_impl.h"
#include "base/simd.h"
#include "base/trace.h"
#include "core/pooling.h"
#include "core/stats.h"
#include "engine/align.h"
#include "io/depth_source.h"
#include "io/scale_source.h"
#include "io/source.h"
#include "model/builtin_models.h"
#include "output/file_output.h"
#include "output/html_report.h"

namespace twinmaf {

const char* version() { return TWINMAF_VERSION; }

void set_ffmpeg_log(bool print) { print_ffmpeg_log(print); }

bool has_feature(std::string_view name) { return find_feature(name) != nullptr; }

void enable_startup_trace() { trace::enable(); }
void mark_startup(std::string_view step) { trace::mark(step); }
std::vector<std::string> startup_trace() { return trace::lines(); }

Status check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) TWINMAF_FAIL(kInvalidArgument, "an output path is empty");
  if (fs::is_directory(path, ec)) TWINMAF_FAIL(kIo, "{}: is a directory", path);
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) TWINMAF_FAIL(kIo, "{}: cannot write: no directory {}", path, dir.string());
  if (::access(dir.c_str(), W_OK) != 0) TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
  return ok_status();
}

namespace {

double pool_metric(const Collector::Column& col, PoolMethod m, unsigned frames, unsigned subsample) {
  return pool(col, m, 0, frames - 1, subsample).value_or(NAN);
}

// How errors name a pushed distorted picture.
std::string pushed_name(size_t lane) { return fmt::format("distorted picture {}", lane); }

}  // namespace

Scorer::Scorer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Scorer::~Scorer() { (void)impl_->end_loop(); }

Result<std::unique_ptr<Scorer>> Scorer::create(ScorerConfig cfg) {
  auto impl = std::make_unique<Impl>();
  if (cfg.distorted == 0) TWINMAF_FAIL(kInvalidArgument, "no distorted input");
  if (cfg.threads > kMaxThreads) TWINMAF_FAIL(kInvalidArgument, "threads: {} is above {}", cfg.threads, kMaxThreads);
  simd_set_cpumask(cfg.cpumask);
  SessionConfig sc;
  sc.threads = cfg.threads;
  sc.subsample = cfg.subsample;
  sc.backend = cfg.backend;
  sc.feature_backends = cfg.feature_backends;
  sc.gpu = cfg.gpu;
  sc.cuda_context = cfg.cuda_context;
  sc.profile = cfg.profile;
  sc.readers = cfg.readers;
  sc.decode = cfg.decode;
  sc.decoders = cfg.decoders;
  Impl* raw = impl.get();
  if (cfg.progress)
    sc.on_frame = [raw](unsigned index) {
      raw->cfg.progress(
          Progress{index + 1, std::chrono::duration<double>(Clock::now() - raw->t0).count(), raw->total});
    };
  impl->session = std::make_unique<Session>(std::move(sc), cfg.distorted);
  // libvmaf's order: the models' features first, then --feature requests.
  for (const std::string& text : cfg.models) {
    TWINMAF_ASSIGN_OR_RETURN(ModelRequest req, parse_model_request(text));
    TWINMAF_ASSIGN_OR_RETURN(LoadedModel model, load_model(req, registry_provider));
    for (const LoadedModel& other : impl->models)
      if (other.main().name() == model.main().name())
        TWINMAF_FAIL(kInvalidArgument, "two models are named '{}'; give each a unique name= in --model",
                     model.main().name());
    TWINMAF_ASSIGN_OR_RETURN(std::vector<FeatureUse> uses, model.bind(registry_provider));
    for (const FeatureUse& use : uses)
      TWINMAF_RETURN_IF_ERROR(impl->session->use_feature_providing(use.provided_name, use.dict));
    impl->labels.push_back(req.label());
    impl->models.push_back(std::move(model));
  }
  for (const std::string& text : cfg.features) {
    TWINMAF_ASSIGN_OR_RETURN(FeatureText f, parse_feature_text(text));
    TWINMAF_RETURN_IF_ERROR(impl->session->use_feature(f.name, f.options));
  }
  if (cfg.scaling.mode != Scaling::Mode::kOff) TWINMAF_RETURN_IF_ERROR(parse_scaler(cfg.scaling.scaler).status());
  impl->cfg = std::move(cfg);
  trace::mark("models loaded, features bound");
  impl->session->begin_device();
  return std::unique_ptr<Scorer>(new Scorer(std::move(impl)));
}

Status Scorer::Impl::predict() {
  info.lane_frames.resize(session->lanes(), report.frames);
  info.frames = *std::max_element(info.lane_frames.begin(), info.lane_frames.end());
  info.warnings = report.warnings;
  info.profile = report.profile;
  info.decoding = report.decoding;
  info.device = report.device;
  info.loop_seconds = report.loop_seconds;
  info.width = fmt.w;
  info.height = fmt.h;
  info.simd = simd_target_name();
  for (const Session::Registered& r : session->features())
    info.backends.emplace_back(std::string(r.spec->name), r.backend);
  const unsigned subsample = session->config().subsample;
  for (unsigned l = 0; l < session->lanes(); ++l) {
    Collector& c = session->collector(l);
    // libvmaf scores every model's frames, then every collection's outputs.
    for (unsigned i = 0; i < info.lane_frames[l]; ++i) {
      if (subsample > 1 && i % subsample) continue;
      for (const LoadedModel& m : models) TWINMAF_RETURN_IF_ERROR(m.predict_main(c, i));
      for (const LoadedModel& m : models)
        if (m.is_collection()) TWINMAF_RETURN_IF_ERROR(m.predict_collection(c, i).status());
    }
  }
  info.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  done = true;
  trace::mark("models predicted");
  return ok_status();
}

Result<Scaling> parse_scaling(std::string_view text) {
  Scaling s;
  if (text.empty() || text == "ref") {
    s.mode = Scaling::Mode::kToReference;
    return s;
  }
  if (text == "model") {
    s.mode = Scaling::Mode::kToModel;
    return s;
  }
  const size_t x = text.find('x');
  const auto dim = [](std::string_view t, int* out) {
    const auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
    return r.ec == std::errc() && r.ptr == t.data() + t.size() && !t.empty() && t[0] != '-' && t[0] != '+' &&
           *out >= 1 && *out <= kMaxPictureSize;
  };
  if (x == std::string_view::npos || !dim(text.substr(0, x), &s.w) || !dim(text.substr(x + 1), &s.h))
    TWINMAF_FAIL(kInvalidArgument, "invalid scaling '{}'; should be ref, model or WxH (1..{} each)", text,
                 kMaxPictureSize);
  s.mode = Scaling::Mode::kToSize;
  return s;
}

namespace {

// Where cfg.scaling takes every input, given the reference's size; none:
// inputs stay as they are.
Result<std::optional<ViewingSize>> scale_target(const Scaling& s, const VideoFormat& ref,
                                                const std::vector<std::string>& model_labels) {
  switch (s.mode) {
    case Scaling::Mode::kOff:
      return std::optional<ViewingSize>();
    case Scaling::Mode::kToReference:
      return std::optional<ViewingSize>(ViewingSize{ref.w, ref.h});
    case Scaling::Mode::kToSize:
      return std::optional<ViewingSize>(ViewingSize{s.w, s.h});
    case Scaling::Mode::kToModel:
      break;
  }
  if (model_labels.empty()) TWINMAF_FAIL(kInvalidArgument, "scaling to the model's resolution needs a model");
  const std::optional<ViewingSize> view = model_viewing_size(model_labels[0]);
  if (!view)
    TWINMAF_FAIL(kInvalidArgument, "the viewing resolution of model {} is unknown; give the size (WxH) to scale to",
                 model_labels[0]);
  // The reference's aspect ratio inside the model's frame, even sides.
  const auto even = [](double v) { return std::max(2, 2 * static_cast<int>(std::lround(v / 2))); };
  if (int64_t(ref.w) * view->h >= int64_t(ref.h) * view->w)
    return std::optional<ViewingSize>(ViewingSize{view->w, even(double(ref.h) * view->w / ref.w)});
  return std::optional<ViewingSize>(ViewingSize{even(double(ref.w) * view->h / ref.h), view->h});
}

// Frames a run will score, if the inputs say (Progress::total).
unsigned expected_frames(const VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                         const std::vector<unsigned>& skip_dis) {
  std::optional<unsigned> n = ref.frames_hint();
  if (!n) return 0;
  unsigned total = *n > limits.skip_ref ? *n - limits.skip_ref : 0;
  for (size_t l = 0; l < dis.size(); ++l) {
    n = dis[l]->frames_hint();
    if (!n) return 0;
    total = std::min(total, *n > skip_dis[l] ? *n - skip_dis[l] : 0);
  }
  return limits.frame_cnt ? std::min(total, limits.frame_cnt) : total;
}

// An input that can be read twice, for `why`.
Status check_rereadable(const InputFile& f, std::string_view why) {
  std::error_code ec;
  if (f.path == "-" || !std::filesystem::is_regular_file(f.path, ec))
    TWINMAF_FAIL(kInvalidArgument, "{}: {} reads the inputs twice; give a file, not a stream", f.path, why);
  return ok_status();
}

}  // namespace

Status Scorer::Impl::begin(size_t distorted) {
  if (used) TWINMAF_FAIL(kInvalidArgument, "a Scorer runs one job");
  used = true;
  t0 = Clock::now();
  if (distorted != session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "{} distorted inputs given to a scorer configured for {}", distorted,
                 session->lanes());
  return ok_status();
}

Result<Scorer::Impl::Inputs> Scorer::Impl::open_inputs(const InputFile& reference,
                                                      const std::vector<InputFile>& distorted) {
  Inputs in;
  TWINMAF_ASSIGN_OR_RETURN(in.ref, open_source(reference.path, reference.raw));
  for (const InputFile& f : distorted) {
    TWINMAF_ASSIGN_OR_RETURN(auto d, open_source(f.path, f.raw));
    in.dis.push_back(std::move(d));
  }
  TWINMAF_ASSIGN_OR_RETURN(const std::optional<ViewingSize> target,
                           scale_target(cfg.scaling, in.ref->format(), labels));
  if (target) {
    TWINMAF_ASSIGN_OR_RETURN(const int flags, parse_scaler(cfg.scaling.scaler));
    for (size_t k = 0; k <= in.dis.size(); ++k) {
      std::unique_ptr<VideoSource>& src = k == 0 ? in.ref : in.dis[k - 1];
      const VideoFormat f = src->format();
      if (f.w == target->w && f.h == target->h) continue;
      in.scaled.push_back({src->path(), f.w, f.h, target->w, target->h, cfg.scaling.scaler});
      TWINMAF_ASSIGN_OR_RETURN(src, with_scale(std::move(src), target->w, target->h, flags));
    }
  }
  if (cfg.common_bitdepth) {
    int bpc = in.ref->format().bpc;
    for (const auto& d : in.dis) bpc = std::max(bpc, d->format().bpc);
    if (in.ref->format().bpc < bpc) in.ref = with_bit_depth(std::move(in.ref), bpc);
    for (auto& d : in.dis)
      if (d->format().bpc < bpc) d = with_bit_depth(std::move(d), bpc);
  }
  for (const auto& d : in.dis) {
    const Status st = check_same_format(*in.ref, *d);
    if (!st.ok() && (in.ref->format().w != d->format().w || in.ref->format().h != d->format().h))
      return Status(st.code(), st.message() + " (--scale scales the distorted input to the reference's size)");
    TWINMAF_RETURN_IF_ERROR(st);
    in.dis_ptrs.push_back(d.get());
  }
  fmt = in.ref->format();
  trace::mark("inputs opened");
  return in;
}

void Scorer::cancel() { impl_->session->config().cancel->store(true); }

Status Scorer::score(const InputFile& reference, const std::vector<InputFile>& distorted, const RunLimits& limits) {
  Impl& m = *impl_;
  TWINMAF_RETURN_IF_ERROR(m.begin(distorted.size()));
  std::vector<unsigned> skip_dis(distorted.size(), limits.skip_dis);
  RunLimits run_limits = limits;
  if (m.cfg.align > 0) {
    TWINMAF_RETURN_IF_ERROR(check_rereadable(reference, "alignment"));
    for (const InputFile& f : distorted) TWINMAF_RETURN_IF_ERROR(check_rereadable(f, "alignment"));
    TWINMAF_ASSIGN_OR_RETURN(Impl::Inputs probe, m.open_inputs(reference, distorted));
    TWINMAF_RETURN_IF_ERROR(probe.ref->skip(limits.skip_ref));
    for (const auto& d : probe.dis) TWINMAF_RETURN_IF_ERROR(d->skip(limits.skip_dis));
    TWINMAF_ASSIGN_OR_RETURN(const std::vector<OffsetMatch> found,
                             find_alignment(*probe.ref, probe.dis_ptrs, m.cfg.align));
    // The reference skips what the most-delayed input lacks; each input
    // skips the rest of its own offset.
    int ahead = 0;
    for (const OffsetMatch& a : found) ahead = std::max(ahead, a.offset);
    run_limits.skip_ref += static_cast<unsigned>(ahead);
    for (size_t l = 0; l < found.size(); ++l) {
      const auto extra = static_cast<unsigned>(ahead - found[l].offset);
      skip_dis[l] += extra;
      m.info.alignment.push_back({distorted[l].path, found[l].offset, static_cast<unsigned>(ahead), extra,
                                  found[l].psnr, found[l].psnr_zero, found[l].ambiguous});
    }
  }
  m.reference_path = reference.path;
  for (const InputFile& f : distorted) m.distorted_paths.push_back(f.path);
  const Status st = m.run_files(reference, distorted, run_limits, skip_dis);
  // The scores are on the host now: a finished Scorer (a Python Result, a
  // score_many() job) holds no device memory.
  m.session->release_twins();
  TWINMAF_RETURN_IF_ERROR(st);
  return m.predict();
}

Status Scorer::Impl::run_files(const InputFile& reference, const std::vector<InputFile>& distorted,
                               const RunLimits& limits, const std::vector<unsigned>& skip_dis) {
  {
    TWINMAF_ASSIGN_OR_RETURN(Inputs in, open_inputs(reference, distorted));
    info.scaled = in.scaled;
    total = expected_frames(*in.ref, in.dis_ptrs, limits, skip_dis);
    const Status st = session->run(*in.ref, in.dis_ptrs, limits, &report, skip_dis);
    info.warnings = report.warnings;
    info.profile = report.profile;
    info.decoding = report.decoding;
    TWINMAF_RETURN_IF_ERROR(st);
  }
  info.lane_frames.assign(session->lanes(), report.frames);
  const std::vector<size_t> longer = longer_lanes();
  if (longer.empty()) return ok_status();
  // Each input with frames left is scored again, alone with the reference
  // and the other such inputs, from the start: a run that gives it the
  // values of a job of its own.
  constexpr std::string_view kWhy = "scoring each distorted input over its own length";
  TWINMAF_RETURN_IF_ERROR(check_rereadable(reference, kWhy));
  Impl again;
  again.cfg = cfg;
  again.labels = labels;
  TWINMAF_ASSIGN_OR_RETURN(again.session, session->fresh(static_cast<unsigned>(longer.size())));
  std::vector<InputFile> files;
  std::vector<unsigned> skips;
  for (size_t l : longer) {
    TWINMAF_RETURN_IF_ERROR(check_rereadable(distorted[l], kWhy));
    files.push_back(distorted[l]);
    skips.push_back(skip_dis.empty() ? limits.skip_dis : skip_dis[l]);
  }
  TWINMAF_RETURN_IF_ERROR(again.run_files(reference, files, limits, skips));
  for (size_t j = 0; j < longer.size(); ++j) {
    session->collector(static_cast<unsigned>(longer[j])) = std::move(again.session->collector(static_cast<unsigned>(j)));
    info.lane_frames[longer[j]] = again.info.lane_frames[j];
  }
  // predict() publishes the merged report.
  for (const std::string& w : again.report.warnings) report.warnings.push_back(w);
  for (const InputDecoding& d : again.report.decoding) report.decoding.push_back(d);
  for (const std::string& p : again.report.profile) report.profile.push_back(p);
  return ok_status();
}

std::vector<size_t> Scorer::Impl::longer_lanes() const {
  std::vector<size_t> longer;
  const std::vector<bool>& ended = report.ended;
  if (ended.empty() || ended[0]) return longer;  // the reference ended: every input ends there
  for (size_t l = 0; l + 1 < ended.size(); ++l)
    if (!ended[l + 1]) longer.push_back(l);
  return longer;
}

Status Scorer::Impl::check_one_length(const std::vector<InputFile>& distorted) const {
  const std::vector<size_t> longer = longer_lanes();
  if (!longer.empty())
    TWINMAF_FAIL(kInvalidArgument,
                 "{} is longer than another distorted input: a distributed run scores inputs of one length "
                 "(score it in a job of its own)", distorted[longer[0]].path);
  return ok_status();
}

Status Scorer::open(const VideoFormat& format) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "a Scorer runs one job");
  m.used = true;
  m.t0 = Clock::now();
  TWINMAF_RETURN_IF_ERROR(validate_format(format));
  m.fmt = format;
  TWINMAF_ASSIGN_OR_RETURN(m.plan, m.session->prepare(format));
  m.pool = std::make_unique<PicturePool>(format, m.session->allocator());
  m.feed = std::make_unique<PushFeed>(8);
  m.loop = std::thread([&m] {
    // The error of a frame the device range check flags: push()'s own check
    // on every plane read.
    const auto check = [](const Picture& p, int planes, const std::string& name, unsigned index) -> Status {
      if (p.host_readable()) return check_sample_range(p, 0, planes, name, index);
      TWINMAF_ASSIGN_OR_RETURN(PicturePtr host, host_copy(p));
      return check_sample_range(*host, 0, planes, name, index);
    };
    const auto host_check = [&m, &check](const FrameSet& set) -> Status {
      TWINMAF_RETURN_IF_ERROR(check(*set.ref, m.plan.ref_planes, "reference", set.index));
      for (size_t l = 0; l < set.dis.size(); ++l)
        TWINMAF_RETURN_IF_ERROR(check(*set.dis[l], m.plan.dis_planes, pushed_name(l), set.index));
      return ok_status();
    };
    // An exception must not leave this thread (std::terminate would take the
    // host program, FFmpeg or Python, with it): it becomes the run's error.
    try {
      m.loop_status = m.session->run(*m.feed, &m.report, host_check);
    } catch (const std::bad_alloc&) {
      m.loop_status = make_error(Code::kInternal, "out of memory");
    } catch (const std::exception& e) {
      m.loop_status = make_error(Code::kInternal, "internal error: {}", e.what());
    }
    m.feed->stop();
  });
  return ok_status();
}

Result<PicturePtr> Scorer::new_picture() {
  if (!impl_->pool) TWINMAF_FAIL(kInvalidArgument, "new_picture() before open()");
  return impl_->pool->acquire();
}

Status Scorer::push(PicturePtr reference, std::vector<PicturePtr> distorted) {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "push() before open()");
  if (distorted.size() != m.session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "push(): {} distorted pictures for a scorer configured for {}", distorted.size(),
                 m.session->lanes());
  FrameSet set;
  set.ref = std::move(reference);
  set.dis = std::move(distorted);
  // The inputs' own checks: format, and (above 8 bits) the sample range of
  // every plane the features read that the device does not check.
  for (size_t k = 0; k <= set.dis.size(); ++k) {
    const Picture* p = k == 0 ? set.ref.get() : set.dis[k - 1].get();
    const std::string name = k == 0 ? "reference" : pushed_name(k - 1);
    if (!p) TWINMAF_FAIL(kInvalidArgument, "push(): the {} is null", name);
    if (!(p->format() == m.fmt))
      TWINMAF_FAIL(kInvalidArgument, "push(): the {} is {}x{} {} {}-bit, the scorer was opened for {}x{} {} {}-bit",
                   name, p->format().w, p->format().h, pix_fmt_name(p->format().fmt), p->format().bpc, m.fmt.w,
                   m.fmt.h, pix_fmt_name(m.fmt.fmt), m.fmt.bpc);
    if (m.fmt.bpc > 8)
      TWINMAF_RETURN_IF_ERROR(check_sample_range(*p, m.plan.host_range_check_from,
                                                 k == 0 ? m.plan.ref_planes : m.plan.dis_planes, name,
                                                 m.pushed));
  }
  ++m.pushed;
  if (!m.feed->push(std::move(set))) {
    const Status imports = m.end_loop();
    if (!m.loop_status.ok()) return m.loop_status;
    return imports.ok() ? Status(Code::kInternal, "push(): the frame loop has stopped") : imports;
  }
  return ok_status();
}

#if !TWINMAF_HAVE_CUDA
Status Scorer::push_device(const DevicePlanes&, const std::vector<DevicePlanes>&, void*) {
  TWINMAF_FAIL(kUnsupported, "push_device(): this build of twinmaf has no CUDA backend");
}

Result<PicturePtr> host_copy(const Picture&) {
  TWINMAF_FAIL(kInternal, "a device picture in a build without CUDA");
}
#endif

Status Scorer::Impl::end_loop() {
  if (!loop.joinable()) return ok_status();
  feed->close();
  loop.join();
  Status first;
  for (const Import& i : pending_imports) {
    const Status st = session->collector(i.lane).append(i.name, i.frame, i.value);
    if (first.ok() && !st.ok()) first = st;
  }
  pending_imports.clear();
  return first;
}

Status Scorer::flush() {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "flush() before open()");
  const Status imports = m.end_loop();
  TWINMAF_RETURN_IF_ERROR(m.loop_status);
  TWINMAF_RETURN_IF_ERROR(imports);
  if (m.done) return ok_status();
  return m.predict();
}

Status Scorer::use_feature(std::string_view name, const OptionList& options) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "feature {}: features are registered before open() or score()", name);
  return m.session->use_feature(name, option_dict(options));
}

Status Scorer::use_model(const ModelHandle& model) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *model.impl_;
  if (m.used)
    TWINMAF_FAIL(kInvalidArgument, "model {}: models are registered before open() or score()", h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  for (const FeatureUse& use : h.uses)
    TWINMAF_RETURN_IF_ERROR(m.session->use_feature_providing(use.provided_name, use.dict));
  return ok_status();
}

Status Scorer::import_score(std::string_view name, unsigned frame, double value, unsigned lane) {
  Impl& m = *impl_;
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (name.empty()) TWINMAF_FAIL(kInvalidArgument, "an imported score needs a name");
  if (m.streaming()) {
    m.pending_imports.push_back({std::string(name), frame, value, lane});
    return ok_status();
  }
  if (m.session->collector(lane).get(name, frame))
    TWINMAF_FAIL(kInvalidArgument, "'{}' already has a value at frame {}", name, frame);
  return m.session->collector(lane).append(name, frame, value);
}

std::optional<double> Scorer::stored_score(std::string_view name, unsigned frame, unsigned lane) const {
  const Impl& m = *impl_;
  if (m.streaming() || lane >= m.session->lanes()) return std::nullopt;
  return m.session->collector(lane).get(name, frame);
}

Result<double> Scorer::stored_pooled(std::string_view name, Pooling method, unsigned first, unsigned last,
                                     unsigned lane) const {
  const Impl& m = *impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (first > last) TWINMAF_FAIL(kInvalidArgument, "pooling frames {}..{}: the first is after the last", first, last);
  const Collector& c = m.session->collector(lane);
  const auto col = std::find_if(c.columns().begin(), c.columns().end(),
                                [&](const Collector::Column& k) { return k.name == name; });
  if (col == c.columns().end()) TWINMAF_FAIL(kInvalidArgument, "no metric '{}' is stored", name);
  constexpr PoolMethod kMethods[] = {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean,
                                     PoolMethod::kHarmonicMean};
  const std::optional<double> v =
      pool(*col, kMethods[static_cast<int>(method)], first, last, m.session->config().subsample);
  if (!v) TWINMAF_FAIL(kInvalidArgument, "'{}' has no value at some frame in {}..{}", name, first, last);
  return *v;
}

Result<double> Scorer::predict(const ModelHandle& model, unsigned frame, unsigned lane) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *model.impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (h.part == ModelHandle::Impl::Part::kMembers)
    TWINMAF_FAIL(kInvalidArgument, "model {}: a collection's members are scored with predict_collection()",
                 h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  return h.model.main().predict(m.session->collector(lane), frame);
}

Result<CollectionScore> Scorer::predict_collection(const ModelHandle& members, unsigned frame, unsigned lane) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *members.impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (h.part != ModelHandle::Impl::Part::kMembers)
    TWINMAF_FAIL(kInvalidArgument, "model {}: not a collection's members", h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  Collector& c = m.session->collector(lane);
  const std::string& n = h.name();
  const auto bagging = c.get(n + "_bagging", frame), stddev = c.get(n + "_stddev", frame),
             lo = c.get(n + "_ci_p95_lo", frame), hi = c.get(n + "_ci_p95_hi", frame);
  if (bagging && stddev && lo && hi) return CollectionScore{*bagging, *stddev, *lo, *hi};
  TWINMAF_ASSIGN_OR_RETURN(const BootstrapScore s, h.model.predict_collection(c, frame));
  return CollectionScore{s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi};
}

unsigned Scorer::frames(unsigned lane) const { return impl_->frames_of(lane); }

std::vector<std::string> Scorer::metrics(unsigned lane) const {
  std::vector<std::string> names;
  if (!impl_->done || lane >= impl_->session->lanes()) return names;
  for (const Collector::Column& c : impl_->session->collector(lane).columns())
    names.emplace_back(feature_name_alias(c.name));
  return names;
}

std::optional<double> Scorer::score(std::string_view metric, unsigned frame, unsigned lane) const {
  if (!impl_->done || lane >= impl_->session->lanes()) return std::nullopt;
  const Collector::Column* c = impl_->column(metric, lane);
  if (!c || frame >= c->values.size() || !c->written[frame]) return std::nullopt;
  return c->values[frame];
}

Result<Pooled> Scorer::pooled(std::string_view metric, unsigned lane) const {
  TWINMAF_RETURN_IF_ERROR(impl_->check_done());
  if (lane >= impl_->session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  const Collector::Column* c = impl_->column(metric, lane);
  if (!c) TWINMAF_FAIL(kInvalidArgument, "no metric '{}' was computed", metric);
  const unsigned n = frames(lane), sub = impl_->session->config().subsample;
  return Pooled{pool_metric(*c, PoolMethod::kMin, n, sub), pool_metric(*c, PoolMethod::kMax, n, sub),
                pool_metric(*c, PoolMethod::kMean, n, sub), pool_metric(*c, PoolMethod::kHarmonicMean, n, sub)};
}

std::vector<std::pair<std::string, double>> Scorer::aggregates(unsigned lane) const {
  if (!impl_->done || lane >= impl_->session->lanes()) return {};
  return impl_->session->collector(lane).aggregates();
}

std::vector<ModelSummary> Scorer::summary(unsigned lane) const {
  std::vector<ModelSummary> out;
  const Impl& m = *impl_;
  if (!m.done || lane >= m.session->lanes()) return out;
  const Collector& c = m.session->collector(lane);
  const unsigned n = m.frames_of(lane), sub = m.session->config().subsample;
  const auto mean_of = [&](const std::string& name) -> double {
    for (const Collector::Column& col : c.columns())
      if (col.name == name) return pool_metric(col, PoolMethod::kMean, n, sub);
    return NAN;
  };
  for (size_t k = 0; k < m.models.size(); ++k)
    out.push_back({m.labels[k], fmt::format("{}: {:f}", m.labels[k], mean_of(m.models[k].main().name()))});
  for (size_t k = 0; k < m.models.size(); ++k) {
    if (!m.models[k].is_collection()) continue;
    const std::string& name = m.models[k].collection_name();
    out.push_back({m.labels[k], fmt::format("{}: {:f}, ci.p95: [{:f}, {:f}], stddev: {:f}", m.labels[k],
                                            mean_of(name + "_bagging"), mean_of(name + "_ci_p95_lo"),
                                            mean_of(name + "_ci_p95_hi"), mean_of(name + "_stddev"))});
  }
  if (m.models.empty())
    for (const Collector::Column& col : c.columns())
      out.push_back({col.name, fmt::format("{}: {:f}", feature_name_alias(col.name), mean_of(col.name))});
  return out;
}

namespace {

std::string json_string(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

OutputInfo Scorer::Impl::output_info(Precision precision, unsigned lane) const {
  const Impl& m = *this;
  OutputInfo out;
  out.version = "twinmaf-" TWINMAF_VERSION;
  out.fps = m.info.seconds > 0 ? m.info.frames / m.info.seconds : 0.0;
  out.width = m.fmt.w;
  out.height = m.fmt.h;
  out.frames = m.frames_of(lane);
  out.subsample = m.session->config().subsample;
  // Recorded only when a GPU computed something, so CPU files stay
  // byte-identical to libvmaf's.
  if (std::any_of(m.info.backends.begin(), m.info.backends.end(), [](const auto& b) { return b.second != "cpu"; }))
    out.backends = m.info.backends;
  out.precision = precision;
  if (lane < m.info.alignment.size()) {
    const Alignment& a = m.info.alignment[lane];
    out.json_extras.emplace_back("alignment", fmt::format("{{\"offset\": {}, \"skip_ref\": {}, \"skip_dist\": {}}}",
                                                           a.offset, a.skip_ref, a.skip_dis));
  }
  std::string scaled;
  for (const ScaledInput& s : m.info.scaled) {
    if (s.input != m.reference_path && (lane >= m.distorted_paths.size() || s.input != m.distorted_paths[lane]))
      continue;
    scaled += fmt::format("{}\n    {{\"input\": {}, \"from\": \"{}x{}\", \"to\": \"{}x{}\", \"scaler\": {}}}",
                          scaled.empty() ? "" : ",", json_string(s.input), s.from_w, s.from_h, s.to_w, s.to_h,
                          json_string(s.scaler));
  }
  if (!scaled.empty()) out.json_extras.emplace_back("scaling", "[" + scaled + "\n  ]");
  if (m.cfg.stats) {
    std::string text;
    const Collector& c = m.session->collector(lane);
    for (const Collector::Column& col : c.columns()) {
      const std::string_view name = feature_name_alias(col.name);
      const auto s = series_stats(col, name, out.frames, m.session->config().subsample, kStatsWorstFrames);
      if (!s) continue;
      const auto num = [&](double v) { return format_number(v, precision); };
      std::string worst;
      for (const auto& [frame, v] : s->worst) worst += fmt::format("{}[{}, {}]", worst.empty() ? "" : ", ", frame, num(v));
      text += fmt::format(
          "{}\n    \"{}\": {{\"mean\": {}, \"stddev\": {}, \"p1\": {}, \"p5\": {}, \"p50\": {}, \"p95\": {}, "
          "\"p99\": {}, \"worst\": [{}], \"frames\": {}, \"non_finite\": {}}}",
          text.empty() ? "" : ",", name, num(s->mean), num(s->stddev), num(s->p1), num(s->p5), num(s->p50),
          num(s->p95), num(s->p99), worst, s->count, s->non_finite);
    }
    out.json_extras.emplace_back("statistics", "{" + text + "\n  }");
  }
  return out;
}

Status write_files(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<StagedFile> staged;
  for (const auto& [path, text] : files) {
    TWINMAF_ASSIGN_OR_RETURN(StagedFile f, StagedFile::stage(path, text));
    staged.push_back(std::move(f));
  }
  for (StagedFile& f : staged) TWINMAF_RETURN_IF_ERROR(f.commit());
  return ok_status();
}

Status html_report_available() { return html_plot_library_available(); }

Result<Stats> Scorer::stats(std::string_view metric, unsigned lane) const {
  TWINMAF_RETURN_IF_ERROR(impl_->check_done());
  if (lane >= impl_->session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  const Collector::Column* c = impl_->column(metric, lane);
  if (!c) TWINMAF_FAIL(kInvalidArgument, "no metric '{}' was computed", metric);
  const auto s = series_stats(*c, feature_name_alias(c->name), frames(lane), impl_->session->config().subsample,
                              kStatsWorstFrames);
  if (!s) TWINMAF_FAIL(kInvalidArgument, "metric '{}' has no finite value", metric);
  return Stats{s->count, s->non_finite, s->mean, s->stddev, s->p1, s->p5, s->p50, s->p95, s->p99, s->worst};
}

Status Scorer::write_html(const std::string& path, const HtmlReport& report) const {
  TWINMAF_ASSIGN_OR_RETURN(const std::string html, format_html(report));
  return write_whole_file(path, html);
}

Result<std::string> Scorer::format_html(const HtmlReport& report) const {
  const Impl& m = *impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_done());
  HtmlReportData d;
  d.title = "twinmaf report: " + (report.reference.empty() ? m.reference_path : report.reference);
  d.command_line = report.command_line;
  d.frames = m.info.frames;
  d.subsample = m.session->config().subsample;
  for (const LoadedModel& model : m.models) {
    d.primary.push_back(model.main().name());
    if (model.is_collection())
      for (const char* suffix : {"_bagging", "_ci_p95_lo", "_ci_p95_hi"})
        d.primary.push_back(model.collection_name() + suffix);
  }
  for (unsigned l = 0; l < m.session->lanes(); ++l) {
    std::string name = l < report.inputs.size() ? report.inputs[l]
                       : l < m.distorted_paths.size() ? m.distorted_paths[l]
                                                      : fmt::format("input {}", l);
    d.lanes.push_back({name, &m.session->collector(l), m.session->collector(l).aggregates()});
  }
  d.facts.emplace_back("twinmaf", fmt::format("{} (every value equal to libvmaf f85a8536's)", TWINMAF_VERSION));
  d.facts.emplace_back("reference", fmt::format("{} ({}x{} {} {}-bit)", report.reference.empty() ? m.reference_path
                                                                                                 : report.reference,
                                                m.fmt.w, m.fmt.h, pix_fmt_name(m.fmt.fmt), m.fmt.bpc));
  for (size_t l = 0; l < d.lanes.size(); ++l) d.facts.emplace_back(fmt::format("distorted {}", l + 1), d.lanes[l].name);
  for (const std::string& label : m.labels) d.facts.emplace_back("model", label);
  d.facts.emplace_back("frames", fmt::format("{} ({:.2f} fps)", m.info.frames,
                                             m.info.seconds > 0 ? m.info.frames / m.info.seconds : 0.0));
  for (const Alignment& a : m.info.alignment)
    d.facts.emplace_back("alignment", fmt::format("{}: offset {:+d} (reference frame {} = distorted frame {}), luma "
                                                  "PSNR {:.2f} dB, {:.2f} dB without offset{}",
                                                  a.input, a.offset, a.skip_ref, a.skip_dis, a.psnr, a.psnr_zero,
                                                  a.ambiguous ? " (ambiguous)" : ""));
  for (const ScaledInput& s : m.info.scaled)
    d.facts.emplace_back("scaled", fmt::format("{}: {}x{} -> {}x{} ({})", s.input, s.from_w, s.from_h, s.to_w,
                                               s.to_h, s.scaler));
  std::string backends;
  for (const auto& [feature, backend] : m.info.backends)
    backends += fmt::format("{}{}: {}", backends.empty() ? "" : ", ", feature, backend);
  if (!m.info.device.empty()) backends += " (" + m.info.device + ")";
  d.facts.emplace_back("backends", backends);
  if (const std::string v = ffmpeg_version(); !v.empty()) d.facts.emplace_back("FFmpeg", v);
  d.facts.emplace_back("compiler", __VERSION__);
  char when[64] = {};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (localtime_r(&now, &tm)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
  d.facts.emplace_back("written", when);
  return format_html_report(d);
}

std::string Scorer::format(OutputFormat format, unsigned lane, Precision precision) const {
  if (impl_->streaming() || lane >= impl_->session->lanes()) return {};
  return format_output(format, impl_->session->collector(lane), impl_->output_info(precision, lane));
}

Status Scorer::write(const std::string& path, OutputFormat format, unsigned lane, Precision precision) const {
  TWINMAF_RETURN_IF_ERROR(impl_->check_readable());
  if (lane >= impl_->session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  return write_output(path, format, impl_->session->collector(lane), impl_->output_info(precision, lane));
}

const RunInfo& Scorer::info() const { return impl_->info; }

}  // namespace twinmaf
