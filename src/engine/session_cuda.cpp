// The GPU frame path of a session (DESIGN.md section 4).
//
// Per frame n, with S ring slots and at most D frames in flight (S = D + 3,
// so the slots of frames n-1 and n-2 stay resident for temporal twins):
//   host:  read the reference and every distorted picture into pinned
//          pictures (the pool is pinned; raw inputs by parallel readers)
//   copy stream: wait for the `done` events of the frames that last read
//          slot n % S (n-S, n-S+1, n-S+2), then one async copy per plane and
//          picture (the reference once, however many distorted inputs), then
//          record `uploaded`
//   device pipeline (engine/device_pipeline.h): after `uploaded`, zero the
//          frame's terms block, each lane's twins (a reference-only twin runs
//          in lane 0 only), one async copy of the terms block to pinned host
//          memory, record `done`; replayed as a CUDA graph, frames taking
//          turns on the pipeline's banks of twin instances so that
//          consecutive frames overlap on the device; above 8 bits, the
//          uploaded planes' sample range check
//   host:  CPU-assigned features compute on the host pictures meanwhile; when
//          D frames are in flight, the oldest is collected: wait for its
//          `done` (the only host wait, on a frame D behind), unpack each
//          twin's terms, and finish every feature in registration order.
#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

#include "engine/device_pipeline.h"
#include "engine/input_reader.h"
#include "engine/range_check.h"
#include "engine/session.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"
#include "gpu/frame_ring.h"

namespace twinmaf {

namespace {

constexpr int kInFlight = 4;
constexpr int kSlots = kInFlight + 3;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

Status Session::assign_backends(const VideoFormat& fmt, std::vector<std::string>* notes) {
  if (cfg_.backend == Backend::kCpu) return ok_status();
  const auto& fs0 = lanes_[0].features;
  const bool any_twin = std::any_of(fs0.begin(), fs0.end(), [](const Registered& r) { return r.spec->cuda != nullptr; });
  if (!any_twin && cfg_.backend == Backend::kAuto) return ok_status();
  if (!gpu_) {
    auto ctx = gpu::Context::create(cfg_.gpu);
    if (!ctx.ok()) {
      if (cfg_.backend == Backend::kCuda) return Status(ctx.status().code(), "--backend cuda: " + ctx.status().message());
      return ok_status();  // auto without a usable device: the CPU
    }
    gpu_ = std::shared_ptr<gpu::Context>(std::move(*ctx));
  }
  TWINMAF_RETURN_IF_ERROR(gpu_->bind());
  for (unsigned l = 0; l < lanes_.size(); ++l) {
    for (Registered& r : lanes_[l].features) {
      if (!r.spec->cuda) {
        if (cfg_.backend == Backend::kCuda)
          TWINMAF_FAIL(kUnsupported, "--backend cuda: feature {} has no CUDA twin", r.spec->name);
        continue;
      }
      auto twin = r.spec->cuda(r.options, fmt, *gpu_);
      if (!twin.ok()) {
        if (cfg_.backend == Backend::kCuda || twin.status().code() != Code::kUnsupported)
          return Status(twin.status().code(),
                        fmt::format("--backend {}: {}", cfg_.backend == Backend::kCuda ? "cuda" : "auto",
                                    twin.status().message()));
        if (l == 0) notes->push_back(fmt::format("{} runs on the CPU: {}", r.spec->name, twin.status().message()));
        continue;
      }
      r.twin = std::move(*twin);
      r.backend = "cuda";
    }
  }
  return ok_status();
}

Status Session::run_cuda(VideoSource& ref, const std::vector<VideoSource*>& dis, const RunLimits& limits,
                         int history, RunReport& rep) {
  TWINMAF_RETURN_IF_ERROR(gpu_->bind());
  const VideoFormat fmt = ref.format();
  const unsigned lanes = static_cast<unsigned>(lanes_.size());
  const size_t nf = lanes_[0].features.size();
  rep.device = fmt::format("GPU {}: {}", gpu_->device(), gpu_->info().name);

  // Terms block of a frame: per lane, per twin, aligned; a lane > 0 copy of a
  // reference-only twin reads lane 0's.
  bool chroma = false;
  std::vector<std::vector<std::size_t>> offset(lanes, std::vector<std::size_t>(nf, 0));
  std::size_t terms_bytes = 0;
  for (unsigned l = 0; l < lanes; ++l)
    for (size_t i = 0; i < nf; ++i) {
      const Registered& r = lanes_[l].features[i];
      if (!r.twin) continue;
      chroma = chroma || r.twin->reads_chroma();
      if (shared_with_lane0(l, i)) {
        offset[l][i] = offset[0][i];
        continue;
      }
      offset[l][i] = terms_bytes;
      terms_bytes += gpu::align_up(r.twin->terms_bytes(), kTermsAlign);
    }
  const int ring_planes = chroma ? fmt.planes() : 1;

  // Above 8 bits, when every feature runs on a twin and every plane read is
  // uploaded, the sample range check runs on the device (range_check.h): one
  // check twin per lane, at the end of the terms block.
  bool all_twins = true;
  for (const Lane& lane : lanes_)
    for (const Registered& r : lane.features) all_twins = all_twins && r.twin != nullptr;
  bool device_range = fmt.bpc > 8 && fmt.bpc < 16 && all_twins && ref.planes_needed() == ring_planes;
  for (const VideoSource* d : dis) device_range = device_range && d->planes_needed() == ring_planes;
  std::vector<std::unique_ptr<Twin>> range_twins;
  std::vector<std::size_t> range_offset;
  if (device_range) {
    ref.set_host_range_check_from(ring_planes);
    for (VideoSource* d : dis) d->set_host_range_check_from(ring_planes);
    for (unsigned l = 0; l < lanes; ++l) {
      range_twins.push_back(make_range_check_twin(fmt, ring_planes, l == 0));
      range_offset.push_back(terms_bytes);
      terms_bytes += gpu::align_up(range_twins.back()->terms_bytes(), kTermsAlign);
    }
  }
  // The host check of frame `index` (the sources' own frame numbers count
  // skipped frames): the CPU path's error, in its order (ref, then each
  // distorted input).
  const auto host_range_check = [&](const FrameSet& set) -> Status {
    TWINMAF_RETURN_IF_ERROR(check_sample_range(*set.ref, 0, ring_planes, ref.path(), set.index + limits.skip_ref));
    for (unsigned l = 0; l < lanes; ++l)
      TWINMAF_RETURN_IF_ERROR(
          check_sample_range(*set.dis[l], 0, ring_planes, dis[l]->path(), set.index + limits.skip_dis));
    return ok_status();
  };

  gpu::PinnedAllocator pinned;
  PicturePool pool(fmt, pinned);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned readers = cfg_.readers ? cfg_.readers : std::clamp(hw - std::min(hw, 2u), 1u, 12u);
  // Pictures alive at once: the readers' window, the frames in flight, the
  // two history references and the set being read.
  pool.reserve((1 + lanes) * (2 * readers + kInFlight + 3));
  InputReader reader(ref, dis, limits.frame_cnt, pool, &rep.warnings, readers);
  TWINMAF_ASSIGN_OR_RETURN(gpu::Stream copy, gpu::Stream::create());
  const auto copy_s = static_cast<cudaStream_t>(copy.get());

  // Twins in enqueue order (lane, feature); bank 0 is the session's
  // instance, the others are made alike for the pipeline's other banks.
  PipelineMode mode;
  mode.profile = cfg_.profile;
  std::vector<PipelineTwin> ptwins;
  std::vector<std::unique_ptr<Twin>> bank_twins;
  std::vector<std::vector<size_t>> twin_of(lanes, std::vector<size_t>(nf, SIZE_MAX));
  for (unsigned l = 0; l < lanes; ++l)
    for (size_t i = 0; i < nf; ++i) {
      const Registered& r = lanes_[l].features[i];
      if (!r.twin || shared_with_lane0(l, i)) continue;
      PipelineTwin t{{r.twin.get()}, l, offset[l][i]};
      TWINMAF_RETURN_IF_ERROR(
          add_bank_instances(t, mode, [&] { return r.spec->cuda(r.options, fmt, *gpu_); }, bank_twins));
      twin_of[l][i] = ptwins.size();
      ptwins.push_back(std::move(t));
    }
  for (unsigned l = 0; l < range_twins.size(); ++l) {
    Twin* t = range_twins[l].get();  // stateless: shared by every bank
    ptwins.push_back(PipelineTwin{std::vector<Twin*>(size_t(mode.bank_count()), t), l, range_offset[l]});
  }
  const size_t nt = ptwins.size();  // pipeline twins: the features', then the range checks
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<DevicePipeline> pipe,
                           DevicePipeline::create(std::move(ptwins), terms_bytes, kSlots, mode));

  struct SlotState {
    gpu::Event uploaded;
    gpu::Event upload_marks[2];  // --profile: before and after the upload
  };
  std::vector<SlotState> slots(kSlots);
  for (SlotState& s : slots) {
    TWINMAF_ASSIGN_OR_RETURN(s.uploaded, gpu::Event::create(false));
    for (gpu::Event& e : s.upload_marks) {
      if (!cfg_.profile) continue;
      TWINMAF_ASSIGN_OR_RETURN(e, gpu::Event::create(true));
    }
  }

  struct InFlight {
    FrameSet set;
    int slot = 0;
    std::vector<FrameTermsList> terms;  // per lane
    bool gpu = false;
  };
  std::deque<InFlight> inflight;
  std::optional<gpu::FrameRing> ring;
  PicturePtr prev, prev_prev;  // host copies for CPU-assigned temporal features
  int prev_slot = -1, prev_prev_slot = -1;

  // --profile accumulators (ms summed over frames); twin k = k-th enqueued.
  double t_read = 0, t_cpu = 0, t_finish = 0, t_wait = 0, t_upload = 0, t_readback = 0, t_gpu = 0;
  std::vector<double> t_twin(nt, 0.0);
  unsigned gpu_frames = 0;
  const auto wall0 = Clock::now();

  const auto elapsed = [](const gpu::Event& a, const gpu::Event& b) {
    float ms = 0;
    cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(a.get()), static_cast<cudaEvent_t>(b.get()));
    return static_cast<double>(ms);
  };

  const auto collect = [&](InFlight& f) -> Status {
    if (f.gpu) {
      const auto t = Clock::now();
      TWINMAF_RETURN_IF_ERROR(pipe->wait(f.slot));
      t_wait += ms_since(t);
      if (cfg_.profile) {
        const SlotState& s = slots[size_t(f.slot)];
        const std::vector<gpu::Event>& m = pipe->marks(f.slot);
        t_upload += elapsed(s.upload_marks[0], s.upload_marks[1]);
        for (size_t k = 0; k < nt; ++k) t_twin[k] += elapsed(m[k], m[k + 1]);
        t_readback += elapsed(m[nt], m[nt + 1]);
        t_gpu += elapsed(s.upload_marks[0], m[nt + 1]);
        ++gpu_frames;
      }
    }
    const auto t = Clock::now();
    const bool sampled = f.set.index % cfg_.subsample == 0;
    const uint8_t* host_terms = pipe->host_terms(f.slot);
    if (f.gpu && device_range) {
      bool over = false;
      for (unsigned l = 0; l < lanes; ++l) {
        RangeTerms rt;
        range_twins[l]->unpack(host_terms + range_offset[l], rt);
        over = over || rt.or_all > (1u << fmt.bpc) - 1;
      }
      if (over) {
        TWINMAF_RETURN_IF_ERROR(host_range_check(f.set));
        TWINMAF_FAIL(kInternal, "frame {}: the device range check and the host's disagree", f.set.index);
      }
    }
    for (unsigned l = 0; l < lanes; ++l) {
      for (size_t i = 0; i < nf; ++i) {
        const Registered& r = lanes_[l].features[i];
        if (!r.twin || (!sampled && !r.spec->every_frame)) continue;
        if (shared_with_lane0(l, i)) {
          f.terms[l][i] = f.terms[0][i];
          continue;
        }
        std::shared_ptr<FrameTerms> terms = r.extractor->make_terms();
        r.twin->unpack(host_terms + offset[l][i], *terms);
        f.terms[l][i] = std::move(terms);
      }
      TWINMAF_RETURN_IF_ERROR(finish_frame(f.set.index, l, f.terms[l]));
    }
    t_finish += ms_since(t);
    ++rep.frames;
    return ok_status();
  };

  std::vector<DeviceFrame> frames(lanes);
  std::vector<bool> active(nt, true);  // the range checks stay active
  for (;;) {
    if (static_cast<int>(inflight.size()) == kInFlight) {
      TWINMAF_RETURN_IF_ERROR(collect(inflight.front()));
      inflight.pop_front();
    }
    InFlight f;
    auto t = Clock::now();
    Result<bool> got = reader.next(&f.set);
    t_read += ms_since(t);
    if (!got.ok()) {
      // Earlier frames' errors come first, as on the CPU path.
      for (; !inflight.empty(); inflight.pop_front()) TWINMAF_RETURN_IF_ERROR(collect(inflight.front()));
      return got.status();
    }
    if (!*got) break;
    const unsigned index = f.set.index;
    if (!ring) {
      TWINMAF_ASSIGN_OR_RETURN(gpu::FrameRing r,
                               gpu::FrameRing::create(*f.set.ref, ring_planes, kSlots, static_cast<int>(1 + lanes)));
      ring.emplace(std::move(r));
    }
    f.slot = static_cast<int>(index % kSlots);
    const SlotState& s = slots[size_t(f.slot)];
    const bool sampled = index % cfg_.subsample == 0;
    for (unsigned l = 0; l < lanes; ++l)
      for (size_t i = 0; i < nf; ++i) {
        const Registered& r = lanes_[l].features[i];
        if (twin_of[l][i] == SIZE_MAX) continue;
        active[twin_of[l][i]] = sampled || r.spec->every_frame;
        f.gpu = f.gpu || active[twin_of[l][i]];
      }
    if (f.gpu) {
      // Device-side fence: the frames that last read this slot (n-S as its
      // own, n-S+1 and n-S+2 as their history) may run on any bank.
      for (unsigned back = kSlots - 2; back <= static_cast<unsigned>(kSlots) && back <= index; ++back)
        TWINMAF_CUDA_TRY(
            cudaStreamWaitEvent(copy_s, static_cast<cudaEvent_t>(pipe->done(int((index - back) % kSlots))), 0));
      if (cfg_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(s.upload_marks[0].get()), copy_s));
      TWINMAF_RETURN_IF_ERROR(ring->upload(f.slot, *f.set.ref, f.set.dis, copy_s));
      if (cfg_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(s.upload_marks[1].get()), copy_s));
      TWINMAF_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(s.uploaded.get()), copy_s));
      for (unsigned l = 0; l < lanes; ++l) {
        DeviceFrame& frame = frames[l];
        frame = DeviceFrame{};
        frame.index = index;
        frame.ref = ring->ref(f.slot);
        frame.dis = ring->dis(f.slot, l);
        if (prev_slot >= 0 && history >= 1) frame.prev_ref = ring->ref(prev_slot);
        if (prev_prev_slot >= 0 && history >= 2) frame.prev_prev_ref = ring->ref(prev_prev_slot);
      }
      TWINMAF_RETURN_IF_ERROR(pipe->enqueue(f.slot, frames, active, s.uploaded.get()));
    } else if (device_range) {
      TWINMAF_RETURN_IF_ERROR(host_range_check(f.set));
    }
    // CPU-assigned features run on the host while the device works.
    t = Clock::now();
    f.terms.resize(lanes);
    for (unsigned l = 0; l < lanes; ++l) {
      const FrameInput in{index, f.set.ref.get(), f.set.dis[l].get(), history >= 1 ? prev.get() : nullptr,
                          history >= 2 ? prev_prev.get() : nullptr};
      TWINMAF_RETURN_IF_ERROR(compute_cpu(in, l, &f.terms[0], f.terms[l]));
    }
    t_cpu += ms_since(t);
    prev_prev = std::move(prev);
    prev = f.set.ref;
    prev_prev_slot = f.gpu ? prev_slot : -1;
    prev_slot = f.gpu ? f.slot : -1;
    inflight.push_back(std::move(f));
  }
  while (!inflight.empty()) {
    TWINMAF_RETURN_IF_ERROR(collect(inflight.front()));
    inflight.pop_front();
  }
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(copy_s));
  rep.loop_seconds = ms_since(wall0) / 1000.0;

  if (cfg_.profile && rep.frames) {
    const double n = rep.frames;
    const double g = gpu_frames ? gpu_frames : 1;
    const double wall = ms_since(wall0);
    rep.profile.push_back(fmt::format("profile: {} frames, {} ({}x{} {} {}-bit), {} distorted input(s), ring {} slots, "
                                      "{} planes uploaded",
                                      rep.frames, rep.device, fmt.w, fmt.h, pix_fmt_name(fmt.fmt), fmt.bpc, lanes,
                                      kSlots, ring_planes));
    rep.profile.push_back(fmt::format("  host read (wait)    {:9.3f} ms/frame ({} reader threads)", t_read / n, readers));
    for (int p = 0; p < ring_planes; ++p)
      rep.profile.push_back(fmt::format("  upload plane {}      {:9} bytes/frame ({} pictures, one copy each)", p,
                                        (1 + lanes) * ring->plane_bytes(p), 1 + lanes));
    rep.profile.push_back(fmt::format("  upload (device)     {:9.3f} ms/frame", t_upload / g));
    size_t k = 0;
    for (unsigned l = 0; l < lanes; ++l)
      for (size_t i = 0; i < nf; ++i) {
        const Registered& r = lanes_[l].features[i];
        if (!r.twin || shared_with_lane0(l, i)) continue;
        const std::string label = lanes > 1 ? fmt::format("{} [{}]", r.twin->name(), l) : r.twin->name();
        rep.profile.push_back(fmt::format("  kernel {:<24} {:9.3f} ms/frame", label, t_twin[k++] / g));
      }
    double t_range = 0;
    for (; k < nt; ++k) t_range += t_twin[k];
    if (device_range)
      rep.profile.push_back(fmt::format("  kernel {:<24} {:9.3f} ms/frame (sample range check, {} lanes)",
                                        range_twins[0]->name(), t_range / g, lanes));
    rep.profile.push_back(fmt::format("  readback            {:9.3f} ms/frame ({} bytes)", t_readback / g, terms_bytes));
    rep.profile.push_back(fmt::format("  device total        {:9.3f} ms/frame", t_gpu / g));
    rep.profile.push_back(fmt::format("  host CPU features   {:9.3f} ms/frame", t_cpu / n));
    rep.profile.push_back(fmt::format("  host wait (oldest)  {:9.3f} ms/frame", t_wait / n));
    rep.profile.push_back(fmt::format("  host finish         {:9.3f} ms/frame", t_finish / n));
    rep.profile.push_back(fmt::format("  wall                {:9.3f} ms/frame ({:.1f} fps)", wall / n, 1000.0 * n / wall));
  }
  return ok_status();
}

}  // namespace twinmaf
