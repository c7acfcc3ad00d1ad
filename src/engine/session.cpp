#include "engine/session.h"

#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <optional>
#include <thread>

#include "base/parallel.h"
#include "base/trace.h"
#include "engine/device_run.h"
#include "engine/input_reader.h"
#include "io/planar.h"

namespace twinmaf {

namespace {

// Frames a device run keeps between admit and complete when nothing else
// asks for more. H200 host, same run (docs/gpu.md): 6 instead of 4 gave VMAF
// v1 at 1080p 2-5 % and cost VMAF v0.6.1 3-7 % and v1 at 4K about 3 %.
constexpr int kDeviceWindow = 4;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Milliseconds summed by several threads.
class MsSum {
 public:
  void add(Clock::time_point since) {
    ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count(),
                  std::memory_order_relaxed);
  }
  double ms() const { return static_cast<double>(ns_.load()) / 1e6; }

 private:
  std::atomic<int64_t> ns_{0};
};

}  // namespace

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

void Session::begin_device() const {}

void Session::end_device() const {}

std::string Session::device_name() const { return {}; }

Result<std::unique_ptr<DeviceRun>> make_device_run(DeviceRunSetup) {
  TWINMAF_FAIL(kInternal, "no CUDA backend in this build");
}
#endif

Result<InputPlan> Session::prepare(const VideoFormat& fmt) {
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

  InputPlan plan;
  int ring_planes = 0;
  bool all_twins = true;
  any_settles_ = false;
  for (const Registered& r : lanes_[0].features) {
    any_settles_ = any_settles_ || r.extractor->settles();
    plan.ref_planes = std::max(plan.ref_planes, plane_count(r.needs.ref, fmt));
    plan.dis_planes = std::max(plan.dis_planes, plane_count(r.needs.dis, fmt));
    if (r.twin)
      ring_planes = std::max({ring_planes, plane_count(r.needs.ref, fmt), plane_count(r.needs.dis, fmt), 1});
    all_twins = all_twins && r.twin != nullptr;
  }
  any_cpu_ = !all_twins;
  plan.pinned = ring_planes > 0;
  // Above 8 bits, when every feature runs on a twin and the inputs read
  // exactly the uploaded planes, the device checks the sample range of the
  // uploads (gpu/range_check.h).
  device_range_check_ = fmt.bpc > 8 && fmt.bpc < 16 && all_twins && plan.ref_planes == ring_planes &&
                        plan.dis_planes == ring_planes;
  plan.host_range_check_from = device_range_check_ ? ring_planes : 0;
  // (16-bit samples cannot exceed their range: no check at all.)
  plan.device_input = all_twins && (fmt.bpc == 8 || fmt.bpc == 16 || device_range_check_);
  if (plan.pinned) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    // pread threads copy 5 to 8 GB/s each out of the page cache: the cores
    // the loop leaves (less the calling thread and one), at most twelve; ten
    // below 4K (pictures under 6 MB) when finishes settle on workers, whose
    // share grows with the frame rate. H200 host, same run, medians: VMAF 4K
    // 480 frames 533 ms with 6 readers, 464 with 12; 1080p 310 / 290 / 288
    // ms with 6 / 10 / 12, eight 1080p encodes 732 / 697 / 688; VMAF v1 1080p
    // 4261 / 5261 / 4324 fps, v1 4K best with 12.
    uint64_t picture_bytes = 0;
    for (int p = 0; p < std::max(plan.ref_planes, plan.dis_planes); ++p) picture_bytes += packed_plane_bytes(fmt, p);
    const unsigned most = any_settles_ && picture_bytes < (uint64_t(6) << 20) ? 10u : 12u;
    plan.reader_threads = cfg_.readers ? cfg_.readers : std::clamp(hw - std::min(hw, 2u), 1u, most);
  }
  return plan;
}

Status Session::compute_cpu(FrameWork& w, Pass pass) const {
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

Status Session::finish_frame(unsigned index, const std::vector<FrameTermsList>& terms,
                             const std::vector<FrameTermsList>* settled) {
  for (unsigned l = 0; l < lanes_.size(); ++l) {
    Lane& lane = lanes_[l];
    for (size_t i = 0; i < lane.features.size(); ++i) {
      const FrameTerms* t = terms[l][i].get();
      if (!t) continue;
      if (cfg_.on_terms) cfg_.on_terms(index, l, i, *t);
      const FrameTerms* s = settled ? (*settled)[l][i].get() : nullptr;
      TWINMAF_RETURN_IF_ERROR(lane.features[i].extractor->finish(index, s ? *s : *t, lane.collector));
    }
  }
  return ok_status();
}

void Session::settle_frame(FrameWork& w) const {
  w.settled.assign(lanes_.size(), FrameTermsList(lanes_[0].features.size()));
  for (unsigned l = 0; l < lanes_.size(); ++l)
    for (size_t i = 0; i < lanes_[l].features.size(); ++i) {
      const Extractor& e = *lanes_[l].features[i].extractor;
      if (!w.terms[l][i] || !e.settles()) continue;
      w.settled[l][i] = shared_with_lane0(l, i) ? w.settled[0][i] : std::shared_ptr<FrameTerms>(e.settle(*w.terms[l][i]));
    }
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
  TWINMAF_RETURN_IF_ERROR(finish_frame(index, terms));
  if (cfg_.on_frame) cfg_.on_frame(index);
  return ok_status();
}

Status Session::end_terms(RunReport* report) {
  for (const std::string& n : notes_) report->warnings.push_back(n);
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) TWINMAF_RETURN_IF_ERROR(r.extractor->flush(lane.collector));
  return ok_status();
}

Status Session::run(FrameFeed& feed, RunReport* report, std::function<Status(const FrameSet&)> host_range_check) {
  if (!prepared_) TWINMAF_FAIL(kInternal, "session run before prepare()");
  RunReport local;
  RunReport& rep = report ? *report : local;
  for (const std::string& n : notes_) rep.warnings.push_back(n);
  const unsigned lanes = static_cast<unsigned>(lanes_.size());
  const size_t nf = lanes_[0].features.size();

  int ref_depth = 0, dis_depth = 0, twin_depth = 0, ring_planes = 0;
  for (const Registered& r : lanes_[0].features) {
    ref_depth = std::max(ref_depth, r.needs.prev_ref);
    dis_depth = std::max(dis_depth, r.needs.prev_dis);
    if (r.twin) {
      twin_depth = std::max({twin_depth, r.needs.prev_ref, r.needs.prev_dis});
      ring_planes = std::max({ring_planes, plane_count(r.needs.ref, fmt_), plane_count(r.needs.dis, fmt_), 1});
    }
  }
  FrameHistory history(ref_depth, dis_depth);
  const bool device = ring_planes > 0;
  // The loop runs on the caller's thread, a window of frames apart, unless
  // CPU features can use workers: a oneTBB pipeline carries a frame through
  // its stages on one thread, so a run without CPU features would wait for
  // the device frame by frame there. With workers, enough frames for the CPU
  // features to keep them busy. Finishes that settle (Extractor::settle) run
  // that part on the workers: a pipeline stage, or, in the caller's loop,
  // tasks of a worker arena, each frame then completed in order.
  const int window = device ? kDeviceWindow : 1;
  const bool settling = any_settles_ && !sink_;
  const bool workers = cfg_.threads > 0 && any_cpu_;
  // Threads beyond the machine's add nothing (oneTBB would refuse them with a
  // warning on stderr) but frames in the loop, memory and ring slots.
  const int threads = std::min(int(cfg_.threads), tbb::info::default_concurrency());
  const int in_loop = workers ? std::max(window, 2 * threads + 2) : window;
  // A device run settles on workers even at --threads 0 (which keeps CPU
  // features on the calling thread): settling there would hold back the
  // frames fed to the device. A quarter of the cores, at most four (H200
  // host, VMAF v1 3d0h end to end: 4K 1141 -> 1396 fps, 1080p 3497 -> 5896).
  const int settle_threads =
      cfg_.threads > 0 ? threads : device ? std::clamp(tbb::info::default_concurrency() / 4, 1, 4) : 0;
  const bool settlers = settling && settle_threads > 0 && !workers;

  std::unique_ptr<DeviceRun> dev;
  if (device) {
    DeviceRunSetup setup;
    setup.fmt = fmt_;
    setup.ctx = gpu_.get();
    setup.lanes.resize(lanes);
    for (unsigned l = 0; l < lanes; ++l)
      for (size_t i = 0; i < nf; ++i) {
        const Registered& r = lanes_[l].features[i];
        setup.lanes[l].push_back(
            DeviceFeature{r.twin.get(), r.extractor.get(), r.spec->cuda, r.needs, shared_with_lane0(l, i),
                          state_from(r, keep_from_)});
      }
    setup.ring_planes = ring_planes;
    setup.history_depth = twin_depth;
    setup.frames_in_loop = in_loop;
    setup.subsample = cfg_.subsample;
    setup.keep_from = keep_from_;
    setup.profile = cfg_.profile;
    setup.device_range_check = device_range_check_;
    setup.host_range_check = std::move(host_range_check);
    TWINMAF_ASSIGN_OR_RETURN(dev, make_device_run(std::move(setup)));
    rep.device = device_name();
    trace::mark("device pipeline built");
  }

  const auto wall0 = Clock::now();
  MsSum t_read, t_submit, t_cpu, t_settle, t_complete;
  Status read_error, first_error;
  std::atomic<bool> failed{false};

  const auto admit = [&]() -> std::unique_ptr<FrameWork> {
    auto w = std::make_unique<FrameWork>();
    auto t = Clock::now();
    Result<bool> got = feed.next(&w->set);
    t_read.add(t);
    if (!got.ok()) read_error = got.status();
    if (!got.ok() || !*got) return nullptr;
    if (w->set.index == 0) trace::mark("first frame read");
    history.fill(*w);
    w->terms.assign(lanes, FrameTermsList(nf));
    if (dev) {
      t = Clock::now();
      w->status = dev->submit(*w);
      t_submit.add(t);
      if (!w->status.ok()) failed.store(true);
    }
    history.push(*w);
    return w;
  };
  const auto compute = [&](FrameWork& w, Pass pass) {
    const auto t = Clock::now();
    // Large frames split their rows into bands run by the arena's threads.
    const BandScope bands(workers ? threads : 1);
    w.status = compute_cpu(w, pass);
    t_cpu.add(t);
  };
  // Frames in order: the device's terms.
  const auto collect = [&](FrameWork& w) {
    const auto t = Clock::now();
    if (w.status.ok() && w.device && !failed.load()) w.status = dev->collect(w);
    t_complete.add(t);
  };
  // Any order, on worker threads.
  const auto settle = [&](FrameWork& w) {
    if (!settling || !w.status.ok() || w.set.index < keep_from_) return;
    const auto t = Clock::now();
    settle_frame(w);
    t_settle.add(t);
  };
  // Frames in order.
  const auto complete = [&](FrameWork& w) {
    if (!first_error.ok()) return;
    const auto t = Clock::now();
    first_error = w.status;
    const bool kept = w.set.index >= keep_from_;
    if (first_error.ok() && kept)
      first_error = sink_ ? (*sink_)(w.set.index, w.terms) : finish_frame(w.set.index, w.terms, w.settled.empty() ? nullptr : &w.settled);
    t_complete.add(t);
    if (!first_error.ok()) {
      failed.store(true);
      return;
    }
    if (!kept) return;
    if (rep.frames++ == 0) trace::mark("first frame scored");
    if (cfg_.on_frame && !sink_) cfg_.on_frame(w.set.index);
  };

  if (!workers) {
    std::deque<std::unique_ptr<FrameWork>> loop, settled;
    std::optional<tbb::task_arena> arena;
    // All its slots for workers (the caller enqueues, never joins), within
    // oneTBB's worker limit (it warns on stderr past it).
    if (settlers) arena.emplace(std::max(1, std::min(settle_threads, tbb::info::default_concurrency() - 1)), 0);
    // Completes the settled frames at the front; with `all`, waits for each.
    const auto complete_settled = [&](bool all) {
      while (!settled.empty()) {
        FrameWork& f = *settled.front();
        if (all) f.settle_done.wait(false);
        if (!f.settle_done.load(std::memory_order_acquire)) return;
        complete(f);
        settled.pop_front();
      }
    };
    const auto retire = [&](std::unique_ptr<FrameWork> w) {
      collect(*w);
      if (!arena) return complete(*w);
      w->release_pictures();  // settling reads the terms alone
      FrameWork* f = w.get();
      settled.push_back(std::move(w));
      arena->enqueue([&settle, f] {
        settle(*f);
        f->settle_done.store(true, std::memory_order_release);
        f->settle_done.notify_one();
      });
      if (settled.size() > size_t(2 * settle_threads)) settled.front()->settle_done.wait(false);
      complete_settled(false);
    };
    for (;;) {
      if (static_cast<int>(loop.size()) == in_loop) {
        retire(std::move(loop.front()));
        loop.pop_front();
      }
      if (failed.load()) break;
      std::unique_ptr<FrameWork> w = admit();
      if (!w) break;
      compute(*w, Pass::kParallel);
      compute(*w, Pass::kOrdered);
      loop.push_back(std::move(w));
    }
    for (; !loop.empty(); loop.pop_front()) retire(std::move(loop.front()));
    complete_settled(true);
  } else {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      auto first = tbb::make_filter<void, FrameWork*>(tbb::filter_mode::serial_in_order,
                                                      [&](tbb::flow_control& fc) -> FrameWork* {
                                                        std::unique_ptr<FrameWork> w;
                                                        if (!failed.load()) w = admit();
                                                        if (!w) fc.stop();
                                                        return w.release();
                                                      });
      auto parallel = tbb::make_filter<FrameWork*, FrameWork*>(tbb::filter_mode::parallel, [&](FrameWork* w) {
        compute(*w, Pass::kParallel);
        return w;
      });
      auto ordered = tbb::make_filter<FrameWork*, FrameWork*>(tbb::filter_mode::serial_in_order, [&](FrameWork* w) {
        compute(*w, Pass::kOrdered);
        collect(*w);
        return w;
      });
      auto settled = tbb::make_filter<FrameWork*, FrameWork*>(tbb::filter_mode::parallel, [&](FrameWork* w) {
        settle(*w);
        return w;
      });
      auto last = tbb::make_filter<FrameWork*, void>(tbb::filter_mode::serial_in_order, [&](FrameWork* w) {
        std::unique_ptr<FrameWork> own(w);
        complete(*own);
      });
      if (settling)
        tbb::parallel_pipeline(size_t(in_loop), first & parallel & ordered & settled & last);
      else
        tbb::parallel_pipeline(size_t(in_loop), first & parallel & ordered & last);
    });
  }
  Status device_end = dev ? dev->finish() : ok_status();
  rep.loop_seconds = ms_since(wall0) / 1000.0;
  trace::mark("last frame scored");
  TWINMAF_RETURN_IF_ERROR(first_error);
  TWINMAF_RETURN_IF_ERROR(read_error);
  TWINMAF_RETURN_IF_ERROR(device_end);
  // A segment may start past the inputs' end.
  if (rep.frames == 0 && !sink_) TWINMAF_FAIL(kBadInput, "no frames to score in {}", feed.describe());

  if (cfg_.profile) {
    const double n = rep.frames, wall = rep.loop_seconds * 1000.0;
    rep.profile.push_back(fmt::format("profile: {} frames ({}x{} {} {}-bit), {} distorted input(s), {} threads{}{}",
                                      rep.frames, fmt_.w, fmt_.h, pix_fmt_name(fmt_.fmt), fmt_.bpc, lanes,
                                      cfg_.threads, device ? ", " : "", rep.device));
    rep.profile.push_back(fmt::format("  host read (wait)    {:9.3f} ms/frame", t_read.ms() / n));
    if (dev) {
      rep.profile.push_back(fmt::format("  host upload+enqueue {:9.3f} ms/frame", t_submit.ms() / n));
      dev->profile(rep.frames, rep.profile);
    }
    rep.profile.push_back(fmt::format("  host CPU features   {:9.3f} ms/frame (summed over threads)", t_cpu.ms() / n));
    if (settlers || (settling && workers))
      rep.profile.push_back(fmt::format("  host settle         {:9.3f} ms/frame (finishes' per-frame part, summed over {} threads)",
                                        t_settle.ms() / n, settlers ? settle_threads : threads));
    rep.profile.push_back(fmt::format("  host complete       {:9.3f} ms/frame (device wait, unpack, finish)",
                                      t_complete.ms() / n));
    rep.profile.push_back(fmt::format("  wall                {:9.3f} ms/frame ({:.1f} fps)", wall / n, 1000.0 * n / wall));
  }
  if (sink_) return ok_status();
  for (Lane& lane : lanes_)
    for (Registered& r : lane.features) TWINMAF_RETURN_IF_ERROR(r.extractor->flush(lane.collector));
  return ok_status();
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
  TWINMAF_ASSIGN_OR_RETURN(const InputPlan plan, prepare(fmt));
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
  PicturePool pool(fmt, allocator(), std::max(plan.ref_planes, plan.dis_planes));
  // Pictures are allocated as the readers first need them (page-locking
  // costs about 0.25 ms/MB on one thread, so nothing up front): at most the readers'
  // window, the frames in the loop, the history and the set being read.
  InputReader reader(ref, dis, frame_cnt, pool, &rep.warnings, plan.reader_threads, run_first_);
  // The inputs' own error for a frame set the device flags (frame numbers
  // count skipped frames), in the CPU path's order: ref, then each input.
  const auto host_check = [&](const FrameSet& set) -> Status {
    TWINMAF_RETURN_IF_ERROR(check_sample_range(*set.ref, 0, plan.ref_planes, ref.path(), set.index + limits.skip_ref));
    for (size_t l = 0; l < dis.size(); ++l)
      TWINMAF_RETURN_IF_ERROR(
          check_sample_range(*set.dis[l], 0, plan.dis_planes, dis[l]->path(), set.index + skip_of(l)));
    return ok_status();
  };
  return run(reader, &rep, host_check);
}

}  // namespace twinmaf
