#include "engine/session.h"

#include <tbb/info.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "base/parallel.h"
#include "base/stopwatch.h"
#include "base/trace.h"
#include "engine/input_reader.h"
#include "io/planar.h"

namespace twinmaf {

Session::Session(SessionConfig cfg, unsigned lanes) : cfg_(std::move(cfg)), lanes_(std::max(1u, lanes)) {
  if (cfg_.subsample == 0) cfg_.subsample = 1;
}

Session::~Session() { end_device(); }

Status Session::add(const FeatureSpec& spec, const OptionDict& opts) {
  if (prepared_) TWINMAF_FAIL(kInternal, "{}: registered after the session was prepared", spec.name);
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

Result<std::unique_ptr<Session>> Session::fresh(unsigned lanes) const {
  SessionConfig cfg = cfg_;
  cfg.on_frame = nullptr;
  auto s = std::make_unique<Session>(std::move(cfg), lanes);
  s->gpu_ = gpu_;
  for (const Registered& r : lanes_[0].features)
    for (Lane& lane : s->lanes_) {
      TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, r.spec->create(r.options));
      lane.features.push_back(Registered{r.spec, r.options, r.key, std::move(ex)});
    }
  return s;
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
  const ColorRange ra = ref.color_range(), rb = dis.color_range();
  if (ra != rb && ra != ColorRange::kUnknown && rb != ColorRange::kUnknown) {
    const auto name = [](ColorRange r) { return r == ColorRange::kFull ? "full (pc)" : "limited (tv or unmarked)"; };
    TWINMAF_FAIL(kBadInput, "sample ranges do not match: {} is {} range, {} is {} range; convert one first "
                 "(ffmpeg -vf scale=out_range=...)", ref.path(), name(ra), dis.path(), name(rb));
  }
  return ok_status();
}

Backend Session::backend_of(const FeatureSpec& spec) const {
  for (const auto& [name, backend] : cfg_.feature_backends)
    if (name == spec.name) return backend;
  return cfg_.backend;
}

#if !TWINMAF_HAVE_CUDA
Status Session::assign_backends(const VideoFormat&, std::vector<std::string>*) {
  for (const Registered& r : lanes_[0].features)
    if (backend_of(*r.spec) == Backend::kCuda)
      TWINMAF_FAIL(kUnsupported, "--backend cuda: this build of twinmaf has no CUDA backend");
  return ok_status();
}

PictureAllocator& Session::allocator() const { return host_allocator(); }

PictureAllocator& Session::device_allocator() const { return host_allocator(); }  // never asked: no_nvdec()

Result<const NvdecContext*> Session::nvdec_context() const { return nullptr; }

std::string Session::no_nvdec() const { return "this build of twinmaf has no CUDA backend"; }

void Session::begin_device() const {}

void Session::end_device() const {}

std::string Session::device_name() const { return {}; }

Result<std::unique_ptr<DeviceRun>> make_device_run(DeviceRunSetup) {
  TWINMAF_FAIL(kInternal, "no CUDA backend in this build");
}
#endif

Result<InputPlan> Session::prepare(const VideoFormat& fmt, std::vector<PlannedInput> inputs) {
  if (prepared_) TWINMAF_FAIL(kInternal, "session prepared twice");
  if (lanes_[0].features.empty()) TWINMAF_FAIL(kInvalidArgument, "no features or models to compute");
  for (const auto& [name, backend] : cfg_.feature_backends)
    if (std::none_of(lanes_[0].features.begin(), lanes_[0].features.end(),
                     [&](const Registered& r) { return r.spec->name == name; }))
      TWINMAF_FAIL(kInvalidArgument, "--backend {}=...: no feature '{}' is computed in this run", name, name);
  fmt_ = fmt;
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) {
      TWINMAF_RETURN_IF_ERROR(r.extractor->init(fmt));
      r.needs = r.extractor->needs();
      TWINMAF_DASSERT(r.needs.prev_ref <= kMaxHistory && r.needs.prev_dis <= kMaxHistory);
    }
  trace::mark("extractors initialised");
  TWINMAF_RETURN_IF_ERROR(assign_backends(fmt, &notes_));
  prepared_ = true;

  LoopRequest q;
  q.fmt = fmt;
  for (const Registered& r : lanes_[0].features)
    q.features.push_back(PlannedFeature{r.needs, r.twin != nullptr, r.extractor->settles()});
  q.threads = cfg_.threads;
  q.readers = cfg_.readers;
  q.segment = sink_ != nullptr;
  q.inputs = std::move(inputs);
  q.no_nvdec = no_nvdec();
  q.cores = tbb::info::default_concurrency();
  q.hardware_threads = std::thread::hardware_concurrency();
  q.decoders = cfg_.decoders;
  q.memory_bytes = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  plan_ = plan_loop(q);
  return plan_.input;
}

Status Session::compute_cpu(LoopFrame& w, Pass pass) const {
  if (!w.status.ok()) return w.status;
  for (unsigned l = 0; l < lanes_.size(); ++l) {
    const std::vector<Registered>& fs = lanes_[l].features;
    FrameInput in = w.input(l);
    for (size_t i = 0; i < fs.size(); ++i) {
      const Registered& r = fs[i];
      if (r.twin || !active(r, w.set.index) || r.needs.temporal != (pass == Pass::kOrdered)) continue;
      if (shared_with_lane0(l, i)) {
        w.terms[l][i] = w.terms[0][i];
        continue;
      }
      in.state_from = state_from(r, keep_from_);
      std::shared_ptr<FrameTerms> t = r.extractor->make_terms();
      TWINMAF_RETURN_IF_ERROR(r.extractor->compute(in, *t));
      w.terms[l][i] = std::move(t);
    }
  }
  return ok_status();
}

void Session::settle_frame(const std::vector<FrameTermsList>& terms, std::vector<FrameTermsList>& settled) const {
  settled.assign(lanes_.size(), FrameTermsList(lanes_[0].features.size()));
  for (unsigned l = 0; l < lanes_.size(); ++l)
    for (size_t i = 0; i < lanes_[l].features.size(); ++i) {
      const Extractor& e = *lanes_[l].features[i].extractor;
      if (!terms[l][i] || !e.settles()) continue;
      settled[l][i] = shared_with_lane0(l, i) ? settled[0][i] : std::shared_ptr<FrameTerms>(e.settle(*terms[l][i]));
    }
}

Status Session::finish_frame(unsigned index, const std::vector<FrameTermsList>& terms,
                             const std::vector<FrameTermsList>& settled) {
  for (unsigned l = 0; l < lanes_.size(); ++l) {
    Lane& lane = lanes_[l];
    for (size_t i = 0; i < lane.features.size(); ++i) {
      const FrameTerms* t = terms[l][i].get();
      if (!t) continue;
      if (cfg_.on_terms) cfg_.on_terms(index, l, i, *t);
      Extractor& e = *lane.features[i].extractor;
      if (e.settles() && (settled.size() <= l || !settled[l][i]))
        TWINMAF_FAIL(kInternal, "frame {}: {} finishes unsettled terms", index, lane.features[i].spec->name);
      TWINMAF_RETURN_IF_ERROR(e.finish(index, e.settles() ? *settled[l][i] : *t, lane.collector));
    }
  }
  return ok_status();
}

Status Session::flush_lanes() {
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) TWINMAF_RETURN_IF_ERROR(r.extractor->flush(lane.collector));
  return ok_status();
}

unsigned Session::state_from(const Registered& r, unsigned keep_from) const {
  if (!r.needs.temporal) return keep_from;
  if (r.needs.state_frames == FeatureNeeds::kAllFrames) return 0;
  return keep_from - std::min(keep_from, static_cast<unsigned>(r.needs.state_frames));
}

unsigned Session::warm_up(unsigned keep_from) const {
  unsigned from = keep_from;
  for (const Registered& r : lanes_[0].features) {
    const unsigned history = static_cast<unsigned>(std::max(r.needs.prev_ref, r.needs.prev_dis));
    const unsigned s = state_from(r, keep_from);
    from = std::min(from, s - std::min(s, history));
  }
  return keep_from - from;
}

Status Session::finish_terms(unsigned index, const std::vector<FrameTermsList>& terms) {
  if (!prepared_) TWINMAF_FAIL(kInternal, "session finishes terms before prepare()");
  std::vector<FrameTermsList> settled;
  if (plan_.settle) settle_frame(terms, settled);
  TWINMAF_RETURN_IF_ERROR(finish_frame(index, terms, settled));
  if (cfg_.on_frame) cfg_.on_frame(index);
  return ok_status();
}

Status Session::end_terms(RunReport* report) {
  for (const std::string& n : notes_) report->warnings.push_back(n);
  return flush_lanes();
}

// The loop's stages over a session (engine/frame_loop.h), with the run's
// history, device half, errors and --profile times.
class Session::Stages final : public LoopStages {
 public:
  struct Times {
    MsSum read, submit, cpu, settle, complete;
  };

  Stages(Session& s, FrameFeed& feed, DeviceRun* dev, RunReport& rep)
      : s_(s), plan_(s.plan_), feed_(feed), dev_(dev), rep_(rep), history_(plan_.ref_depth, plan_.dis_depth) {}

  std::unique_ptr<LoopFrame> admit() override {
    auto w = std::make_unique<LoopFrame>();
    if (s_.cfg_.cancel->load()) {
      read_error_ = Status(Code::kCancelled, "cancelled");
      return nullptr;
    }
    auto t = Clock::now();
    Result<bool> got = feed_.next(&w->set);
    times_.read.add(t);
    if (!got.ok()) read_error_ = got.status();
    if (!got.ok() || !*got) return nullptr;
    if (w->set.index == 0) trace::mark("first frame read");
    history_.fill(*w);
    w->terms.assign(s_.lanes_.size(), FrameTermsList(s_.lanes_[0].features.size()));
    if (dev_) {
      t = Clock::now();
      w->status = dev_->submit(*w);
      times_.submit.add(t);
      if (!w->status.ok()) failed_.store(true);
    }
    history_.push(*w);
    return w;
  }

  void compute(LoopFrame& w, Pass pass) override {
    const auto t = Clock::now();
    // Large frames split their rows into bands run by the arena's threads.
    const BandScope bands(plan_.workers ? plan_.threads : 1);
    w.status = s_.compute_cpu(w, pass);
    times_.cpu.add(t);
  }

  // Frames in order: the device's terms.
  void collect(LoopFrame& w) override {
    const auto t = Clock::now();
    if (w.status.ok() && w.device && !failed_.load()) w.status = dev_->collect(w);
    times_.complete.add(t);
  }

  void settle(LoopFrame& w) override {
    if (!plan_.settle || !w.status.ok() || w.set.index < s_.keep_from_) return;
    const auto t = Clock::now();
    s_.settle_frame(w.terms, w.settled);
    times_.settle.add(t);
  }

  // Frames in order.
  void complete(LoopFrame& w) override {
    if (!first_error_.ok()) return;
    const auto t = Clock::now();
    first_error_ = w.status;
    const bool kept = w.set.index >= s_.keep_from_;
    if (first_error_.ok() && kept)
      first_error_ = s_.sink_ ? (*s_.sink_)(w.set.index, w.terms) : s_.finish_frame(w.set.index, w.terms, w.settled);
    times_.complete.add(t);
    if (!first_error_.ok()) {
      failed_.store(true);
      return;
    }
    if (!kept) return;
    if (rep_.frames++ == 0) trace::mark("first frame scored");
    if (s_.cfg_.on_frame && !s_.sink_) s_.cfg_.on_frame(w.set.index);
  }

  bool failed() const override { return failed_.load(); }
  // The run's error, in the order a user should see it.
  Status error() const { return !first_error_.ok() ? first_error_ : read_error_; }
  const Times& times() const { return times_; }

 private:
  Session& s_;
  const LoopPlan& plan_;
  FrameFeed& feed_;
  DeviceRun* dev_;
  RunReport& rep_;
  FrameHistory history_;
  Times times_;
  Status read_error_, first_error_;
  std::atomic<bool> failed_{false};
};

DeviceRunSetup Session::device_setup(std::function<Status(const FrameSet&)> host_range_check) const {
  DeviceRunSetup setup;
  setup.fmt = fmt_;
  setup.ctx = gpu_.get();
  setup.lanes.resize(lanes_.size());
  for (unsigned l = 0; l < lanes_.size(); ++l)
    for (size_t i = 0; i < lanes_[l].features.size(); ++i) {
      const Registered& r = lanes_[l].features[i];
      setup.lanes[l].push_back(DeviceFeature{r.twin.get(), r.extractor.get(), r.spec->cuda, r.needs,
                                             shared_with_lane0(l, i), state_from(r, keep_from_)});
    }
  setup.ring_planes = plan_.ring_planes;
  setup.history_depth = plan_.twin_depth;
  setup.frames_in_loop = plan_.frames_in_loop;
  setup.subsample = cfg_.subsample;
  setup.keep_from = keep_from_;
  setup.profile = cfg_.profile;
  setup.device_range_check = plan_.device_range_check;
  setup.host_range_check = std::move(host_range_check);
  return setup;
}

namespace {

// The --profile table of one run.
void profile_lines(const LoopPlan& plan, const auto& times, const VideoFormat& fmt, unsigned lanes,
                   unsigned threads_flag, const DeviceRun* dev, RunReport& rep) {
  const double n = rep.frames, wall = rep.loop_seconds * 1000.0;
  std::vector<std::string>& out = rep.profile;
  out.push_back(fmt::format("profile: {} frames ({}x{} {} {}-bit), {} distorted input(s), {} threads{}{}", rep.frames,
                            fmt.w, fmt.h, pix_fmt_name(fmt.fmt), fmt.bpc, lanes, threads_flag, dev ? ", " : "",
                            rep.device));
  out.push_back(fmt::format("  loop                {}", plan.describe()));
  out.push_back(fmt::format("  host read (wait)    {:9.3f} ms/frame", times.read.ms() / n));
  if (dev) {
    out.push_back(fmt::format("  host upload+enqueue {:9.3f} ms/frame", times.submit.ms() / n));
    dev->profile(rep.frames, out);
  }
  out.push_back(fmt::format("  host CPU features   {:9.3f} ms/frame (summed over threads)", times.cpu.ms() / n));
  if (plan.settle)
    out.push_back(fmt::format("  host settle         {:9.3f} ms/frame (finishes' per-frame part, summed over {} threads)",
                              times.settle.ms() / n, plan.workers ? plan.threads : std::max(1, plan.settle_threads)));
  out.push_back(fmt::format("  host complete       {:9.3f} ms/frame (device wait, unpack, finish)",
                            times.complete.ms() / n));
  out.push_back(fmt::format("  wall                {:9.3f} ms/frame ({:.1f} fps)", wall / n, 1000.0 * n / wall));
}

}  // namespace

Status Session::run(FrameFeed& feed, RunReport* report, std::function<Status(const FrameSet&)> host_range_check) {
  if (!prepared_) TWINMAF_FAIL(kInternal, "session run before prepare()");
  RunReport local;
  RunReport& rep = report ? *report : local;
  for (const std::string& n : notes_) rep.warnings.push_back(n);
  std::unique_ptr<DeviceRun> dev;
  if (plan_.device) {
    TWINMAF_ASSIGN_OR_RETURN(dev, make_device_run(device_setup(std::move(host_range_check))));
    rep.device = device_name();
    trace::mark("device pipeline built");
  }

  const auto wall0 = Clock::now();
  Stages stages(*this, feed, dev.get(), rep);
  if (plan_.workers)
    drive_pipeline(stages, plan_);
  else
    drive_inline(stages, plan_);
  const Status device_end = dev ? dev->finish() : ok_status();
  rep.loop_seconds = ms_since(wall0) / 1000.0;
  trace::mark("last frame scored");
  TWINMAF_RETURN_IF_ERROR(stages.error());
  TWINMAF_RETURN_IF_ERROR(device_end);
  // A segment may start past the inputs' end.
  if (rep.frames == 0 && !sink_) TWINMAF_FAIL(kBadInput, "no frames to score in {}", feed.describe());

  if (cfg_.profile)
    profile_lines(plan_, stages.times(), fmt_, static_cast<unsigned>(lanes_.size()), cfg_.threads, dev.get(), rep);
  return sink_ ? ok_status() : flush_lanes();
}

Status Session::run_segment(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                            unsigned first, unsigned count, const TermsSink& sink, RunReport* report) {
  if (count == 0) TWINMAF_FAIL(kInvalidArgument, "a segment of 0 frames");
  sink_ = &sink;
  const Status st = run_files(ref, dis, limits, first, count, report, {});
  sink_ = nullptr;
  return st;
}

Status Session::run(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                    RunReport* report, const std::vector<unsigned>& skip_dis) {
  return run_files(ref, dis, limits, 0, 0, report, skip_dis);
}

Status Session::run_files(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                          unsigned first, unsigned count, RunReport* report, const std::vector<unsigned>& skip_dis) {
  if (dis.size() != lanes_.size() || (!skip_dis.empty() && skip_dis.size() != dis.size()))
    TWINMAF_FAIL(kInternal, "session of {} lanes given {} distorted inputs", lanes_.size(), dis.size());
  const auto skip_of = [&](size_t lane) { return skip_dis.empty() ? limits.skip_dis : skip_dis[lane]; };
  for (VideoSource* d : dis) TWINMAF_RETURN_IF_ERROR(check_same_format(ref, *d));
  const VideoFormat fmt = ref.format();
  std::vector<VideoSource*> sources{&ref};
  sources.insert(sources.end(), dis.begin(), dis.end());
  const std::vector<Decode>& decode = cfg_.decode;
  if (decode.size() > 1 && decode.size() != sources.size())
    TWINMAF_FAIL(kInvalidArgument, "--decode lists {} choices for {} inputs (give one, or one per input)",
                 decode.size(), sources.size());
  const auto decode_of = [&](size_t k) { return decode.empty() ? Decode::kAuto : decode[std::min(k, decode.size() - 1)]; };
  std::vector<PlannedInput> inputs;
  for (size_t k = 0; k < sources.size(); ++k) {
    const VideoSource& s = *sources[k];
    inputs.push_back({s.decodes(), s.decodes() ? s.nvdec_refusal() : "", decode_of(k), s.h264()});
  }
  TWINMAF_ASSIGN_OR_RETURN(const InputPlan plan, prepare(fmt, std::move(inputs)));
  if (plan.nvdec_refused >= 0)
    TWINMAF_FAIL(kUnsupported, "--decode nvdec: {}: {}", sources[size_t(plan.nvdec_refused)]->path(),
                 plan.decoders[size_t(plan.nvdec_refused)].why);
  for (size_t k = 0; k < sources.size(); ++k) {
    const DecodeOn on = plan.decoders[k].on;
    if (on == DecodeOn::kNone) continue;
    const NvdecContext* nvdec = nullptr;
    if (on == DecodeOn::kNvdec) {
      TWINMAF_ASSIGN_OR_RETURN(nvdec, nvdec_context());
    }
    const InputDecoder& d = plan.decoders[k];
    TWINMAF_RETURN_IF_ERROR(
        sources[k]->set_decoder({d.threads, nvdec, decode_of(k) == Decode::kNvdec, d.decoders, d.ahead_bytes}));
  }
  // A segment reads from the first frame its warm-up needs, numbering frames
  // from there, and stops `count` frames after `first`.
  unsigned frame_cnt = limits.frame_cnt;
  if (sink_) {
    if (limits.frame_cnt && first >= limits.frame_cnt) return ok_status();
    run_first_ = first - warm_up(first);
    keep_from_ = first;
    const unsigned end = limits.frame_cnt ? std::min(first + count, limits.frame_cnt) : first + count;
    frame_cnt = end - run_first_;
  }
  ref.set_planes_needed(plan.ref_planes);
  ref.set_host_range_check_from(plan.host_range_check_from);
  TWINMAF_RETURN_IF_ERROR(ref.skip(limits.skip_ref + run_first_));
  for (size_t l = 0; l < dis.size(); ++l) {
    dis[l]->set_planes_needed(plan.dis_planes);
    dis[l]->set_host_range_check_from(plan.host_range_check_from);
    TWINMAF_RETURN_IF_ERROR(dis[l]->skip(skip_of(l) + run_first_));
  }
  RunReport local;
  RunReport& rep = report ? *report : local;
  const int planes = std::max(plan.ref_planes, plan.dis_planes);
  PicturePool pool(fmt, allocator(), planes);
  // Pictures are allocated as the readers first need them (page-locking
  // costs about 0.25 ms/MB on one thread, so nothing up front): at most the readers'
  // window, the frames in the loop, the history and the set being read.
  // NVDEC's inputs read into device memory.
  std::optional<PicturePool> device_pool;
  std::vector<PicturePool*> pools;
  for (const InputDecoder& d : plan.decoders) {
    if (d.on == DecodeOn::kNvdec && !device_pool) device_pool.emplace(fmt, device_allocator(), planes);
    pools.push_back(d.on == DecodeOn::kNvdec ? &*device_pool : &pool);
  }
  InputReader reader(ref, dis, frame_cnt, pool, &rep.warnings, plan.reader_threads, run_first_, plan.read_ahead,
                     pools);
  // The inputs' own error for a frame set the device flags (frame numbers
  // count skipped frames), in the CPU path's order: ref, then each input.
  // (NVDEC's pictures, in device memory, hold 16-bit words shifted down to
  // the depth: never out of range.)
  const auto host_check = [&](const FrameSet& set) -> Status {
    if (set.ref->host_readable())
      TWINMAF_RETURN_IF_ERROR(
          check_sample_range(*set.ref, 0, plan.ref_planes, ref.path(), set.index + limits.skip_ref));
    for (size_t l = 0; l < dis.size(); ++l)
      if (set.dis[l]->host_readable())
        TWINMAF_RETURN_IF_ERROR(
            check_sample_range(*set.dis[l], 0, plan.dis_planes, dis[l]->path(), set.index + skip_of(l)));
    return ok_status();
  };
  const Status st = run(reader, &rep, host_check);
  rep.ended = reader.ended();
  for (size_t k = 0; k < sources.size(); ++k) {
    const VideoSource::DecodeStats s = sources[k]->decode_stats();
    if (s.decoder.empty()) continue;
    rep.decoding.push_back({sources[k]->path(), s.decoder, plan.decoders[k].why, s.seconds, s.frames});
    if (cfg_.profile)
      rep.profile.push_back(fmt::format("  decode              {:9.3f} ms/frame ({:.1f} fps) {} ({})",
                                        s.frames ? 1000.0 * s.seconds / s.frames : 0.0,
                                        s.seconds > 0 ? s.frames / s.seconds : 0.0, sources[k]->path(), s.decoder));
  }
  return st;
}

}  // namespace twinmaf
