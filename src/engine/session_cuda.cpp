// The CUDA side of a session: backend assignment (twins made from the
// configured extractors) and the device half of the frame loop
// (engine/device_run.h).
#include <algorithm>

#include "base/stopwatch.h"
#include "base/trace.h"
#include "engine/device_run.h"
#include "engine/session.h"
#include "gpu/cuda_check.h"
#include "gpu/device.h"
#include "gpu/device_pipeline.h"
#include "gpu/frame_ring.h"
#include "gpu/range_check.h"

namespace twinmaf {

namespace {

cudaStream_t as_stream(const gpu::Stream& s) { return static_cast<cudaStream_t>(s.get()); }
cudaEvent_t as_event(const gpu::Event& e) { return static_cast<cudaEvent_t>(e.get()); }

gpu::PinnedAllocator& pinned_allocator() {
  static gpu::PinnedAllocator alloc;
  return alloc;
}

const char* backend_flag(Backend b) { return b == Backend::kCuda ? "cuda" : "auto"; }

}  // namespace

PictureAllocator& Session::allocator() const {
  for (const Registered& r : lanes_[0].features)
    if (r.twin) return pinned_allocator();
  return host_allocator();
}

PictureAllocator& Session::device_allocator() const {
  if (!device_alloc_) device_alloc_ = std::make_unique<gpu::DeviceAllocator>(gpu_.get());
  return *device_alloc_;
}

Result<const NvdecContext*> Session::nvdec_context() const {
  if (!nvdec_ctx_) {
    TWINMAF_ASSIGN_OR_RETURN(void* cu, gpu_->cu_context());
    nvdec_ctx_ = std::make_unique<NvdecContext>(NvdecContext{cu, [g = gpu_] { return g->bind(); }});
  }
  return nvdec_ctx_.get();
}

std::string Session::no_nvdec() const { return gpu_ ? std::string() : "the run uses no GPU"; }

std::string Session::device_name() const {
  return gpu_ ? fmt::format("GPU {}: {}", gpu_->device(), gpu_->info().name) : std::string();
}

bool Session::wants_device() const {
  return std::any_of(lanes_[0].features.begin(), lanes_[0].features.end(), [&](const Registered& r) {
    const Backend b = backend_of(*r.spec);
    return b == Backend::kCuda || (b == Backend::kAuto && r.spec->cuda);
  });
}

void Session::begin_device() const {
  if (wants_device() && !cfg_.cuda_context) gpu::begin_context(cfg_.gpu);
}

void Session::end_device() const { gpu::join_context_warm_up(); }

Status Session::assign_backends(const VideoFormat& fmt, std::vector<std::string>* notes) {
  const auto& fs0 = lanes_[0].features;
  if (!wants_device()) return ok_status();
  if (!gpu_) {
    auto ctx = gpu::Context::create(cfg_.gpu, cfg_.cuda_context);
    if (!ctx.ok()) {
      for (const Registered& r : fs0)
        if (backend_of(*r.spec) == Backend::kCuda)
          return Status(ctx.status().code(), "--backend cuda: " + ctx.status().message());
      return ok_status();  // auto without a usable device: the CPU
    }
    gpu_ = std::shared_ptr<gpu::Context>(std::move(*ctx));
    trace::mark("CUDA context created");
  }
  TWINMAF_RETURN_IF_ERROR(gpu_->bind());
  for (unsigned l = 0; l < lanes_.size(); ++l) {
    for (Registered& r : lanes_[l].features) {
      const Backend b = backend_of(*r.spec);
      if (b == Backend::kCpu) continue;
      if (!r.spec->cuda) {
        if (b == Backend::kCuda) TWINMAF_FAIL(kUnsupported, "--backend cuda: feature {} has no CUDA twin", r.spec->name);
        continue;
      }
      auto twin = r.spec->cuda(*r.extractor, fmt, *gpu_);
      if (!twin.ok()) {
        if (b == Backend::kCuda || twin.status().code() != Code::kUnsupported)
          return Status(twin.status().code(), fmt::format("--backend {}: {}", backend_flag(b), twin.status().message()));
        if (l == 0) notes->push_back(fmt::format("{} runs on the CPU: {}", r.spec->name, twin.status().message()));
        continue;
      }
      r.twin = std::move(*twin);
      r.backend = "cuda";
    }
  }
  trace::mark("CUDA twins created");
  return ok_status();
}

namespace {

class CudaRun final : public DeviceRun {
 public:
  explicit CudaRun(DeviceRunSetup s) : s_(std::move(s)) {}
  Status init();
  Status submit(LoopFrame& w) override;
  Status collect(LoopFrame& w) override;
  Status finish() override;
  void profile(unsigned frames, std::vector<std::string>& lines) const override;

 private:
  struct SlotState {
    gpu::Event uploaded;
    gpu::Event upload_marks[2];  // --profile: before and after the upload
  };
  unsigned lanes() const { return static_cast<unsigned>(s_.lanes.size()); }
  bool active(const DeviceFeature& f, unsigned index) const {
    return index >= f.state_from && (index % s_.subsample == 0 || f.needs.every_frame());
  }
  // [lane][feature]: the feature of the lane whose twin computes this one's
  // terms on every frame it is active, SIZE_MAX for none.
  std::vector<std::vector<std::size_t>> computed_by() const;

  DeviceRunSetup s_;
  int slots_count_ = 0;
  std::size_t terms_bytes_ = 0;
  std::vector<std::vector<std::size_t>> offset_;  // [lane][feature]: of its raw terms
  std::vector<std::vector<std::size_t>> stage_of_;  // [lane][feature]: pipeline stage, SIZE_MAX: none
  std::vector<std::vector<std::size_t>> by_;        // computed_by()
  std::vector<std::unique_ptr<gpu::DeviceStage>> range_checks_;  // one per lane
  std::vector<std::size_t> range_offset_;
  std::vector<std::unique_ptr<gpu::DeviceStage>> bank_stages_;
  std::size_t stages_ = 0;  // the features' twins, then the range checks
  std::unique_ptr<gpu::DevicePipeline> pipe_;
  gpu::Stream copy_;
  std::vector<SlotState> slots_;
  std::optional<gpu::FrameRing> ring_;
  // submit's buffers, reused frame to frame.
  std::vector<DeviceFrame> frames_;
  std::vector<bool> active_;
  // --profile sums (ms over frames), written by collect only.
  double t_wait_ = 0, t_upload_ = 0, t_readback_ = 0, t_gpu_ = 0;
  std::vector<double> t_stage_;
  unsigned device_frames_ = 0;
};

std::vector<std::vector<std::size_t>> CudaRun::computed_by() const {
  std::vector<std::vector<std::size_t>> by(lanes());
  for (unsigned l = 0; l < lanes(); ++l) {
    const std::vector<DeviceFeature>& fs = s_.lanes[l];
    by[l].assign(fs.size(), SIZE_MAX);
    const auto own = [](const DeviceFeature& f) { return f.twin && !f.shared_with_lane0; };
    for (size_t i = 0; i < fs.size(); ++i)
      for (size_t j = 0; j < fs.size() && own(fs[i]) && by[l][i] == SIZE_MAX; ++j)
        if (j != i && own(fs[j]) && fs[j].state_from == fs[i].state_from &&
            fs[j].needs.every_frame() == fs[i].needs.every_frame() && fs[j].twin->computes_for(*fs[i].twin))
          by[l][i] = j;
    // A twin that is itself computed by another computes for no one.
    for (size_t i = 0; i < fs.size(); ++i)
      if (by[l][i] != SIZE_MAX && by[l][by[l][i]] != SIZE_MAX) by[l][i] = SIZE_MAX;
  }
  return by;
}

Status CudaRun::init() {
  TWINMAF_RETURN_IF_ERROR(s_.ctx->bind());
  const unsigned nl = lanes();
  const size_t nf = s_.lanes[0].size();
  slots_count_ = s_.frames_in_loop + kMaxHistory + 1;
  offset_.assign(nl, std::vector<std::size_t>(nf, 0));
  stage_of_.assign(nl, std::vector<std::size_t>(nf, SIZE_MAX));

  // Terms block of a frame: per lane, per twin, aligned; a lane > 0 copy of
  // a reference-only twin reads lane 0's, a twin another twin of its lane
  // computes for (Twin::computes_for) reads that one's; then one range check
  // per lane.
  gpu::PipelineMode mode;
  mode.profile = s_.profile;
  std::vector<gpu::PipelineStage> stages;
  by_ = computed_by();
  const std::vector<std::vector<std::size_t>>& by = by_;
  for (unsigned l = 0; l < nl; ++l)
    for (size_t i = 0; i < nf; ++i) {
      const DeviceFeature& f = s_.lanes[l][i];
      if (!f.twin || f.shared_with_lane0 || by[l][i] != SIZE_MAX) continue;
      offset_[l][i] = terms_bytes_;
      terms_bytes_ += gpu::align_up(f.twin->terms_bytes(), gpu::kTermsAlign);
      gpu::PipelineStage st{{f.twin}, l, offset_[l][i]};
      TWINMAF_RETURN_IF_ERROR(gpu::add_bank_instances(
          st, mode,
          [&]() -> Result<std::unique_ptr<gpu::DeviceStage>> {
            TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Twin> t, f.factory(*f.configured, s_.fmt, *s_.ctx));
            return std::unique_ptr<gpu::DeviceStage>(std::move(t));
          },
          bank_stages_));
      stage_of_[l][i] = stages.size();
      stages.push_back(std::move(st));
    }
  for (unsigned l = 0; l < nl; ++l)
    for (size_t i = 0; i < nf; ++i)
      if (by[l][i] != SIZE_MAX) offset_[l][i] = offset_[l][by[l][i]];
  for (unsigned l = 1; l < nl; ++l)
    for (size_t i = 0; i < nf; ++i)
      if (s_.lanes[l][i].twin && s_.lanes[l][i].shared_with_lane0) offset_[l][i] = offset_[0][i];
  if (s_.device_range_check)
    for (unsigned l = 0; l < nl; ++l) {
      range_checks_.push_back(gpu::make_range_check(s_.fmt, s_.ring_planes, l == 0));
      range_offset_.push_back(terms_bytes_);
      terms_bytes_ += gpu::align_up(range_checks_.back()->terms_bytes(), gpu::kTermsAlign);
      // Stateless: one instance serves every bank.
      stages.push_back(gpu::PipelineStage{
          std::vector<gpu::DeviceStage*>(size_t(mode.bank_count()), range_checks_.back().get()), l,
          range_offset_.back()});
    }
  stages_ = stages.size();
  active_.assign(stages_, true);  // the range checks stay active
  t_stage_.assign(stages_, 0.0);
  TWINMAF_ASSIGN_OR_RETURN(pipe_, gpu::DevicePipeline::create(std::move(stages), terms_bytes_, slots_count_, mode));
  TWINMAF_ASSIGN_OR_RETURN(copy_, gpu::Stream::create());
  slots_.resize(size_t(slots_count_));
  for (SlotState& s : slots_) {
    TWINMAF_ASSIGN_OR_RETURN(s.uploaded, gpu::Event::create(false));
    for (gpu::Event& e : s.upload_marks) {
      if (!s_.profile) continue;
      TWINMAF_ASSIGN_OR_RETURN(e, gpu::Event::create(true));
    }
  }
  frames_.resize(nl);
  return ok_status();
}

Status CudaRun::submit(LoopFrame& w) {
  TWINMAF_RETURN_IF_ERROR(s_.ctx->bind());
  const unsigned index = w.set.index;
  w.device = false;
  for (unsigned l = 0; l < lanes(); ++l)
    for (size_t i = 0; i < s_.lanes[l].size(); ++i) {
      const std::size_t k = stage_of_[l][i];
      if (k == SIZE_MAX) continue;
      active_[k] = active(s_.lanes[l][i], index);
      w.device = w.device || active_[k];
    }
  // A segment's warm-up frame is history of the frames after it.
  if (index < s_.keep_from && s_.history_depth > 0) w.device = true;
  if (!w.device) {
    if (s_.device_range_check) return s_.host_range_check(w.set);
    return ok_status();
  }
  if (!ring_) {
    TWINMAF_ASSIGN_OR_RETURN(gpu::FrameRing r,
                             gpu::FrameRing::create(*w.set.ref, s_.ring_planes, slots_count_, int(1 + lanes())));
    ring_.emplace(std::move(r));
  }
  w.slot = static_cast<int>(index % unsigned(slots_count_));
  const SlotState& s = slots_[size_t(w.slot)];
  const cudaStream_t cs = as_stream(copy_);
  // Device-side fence: the frames that last read this slot (n-S as its own,
  // n-S+1 .. n-S+depth as their history) may run on any bank.
  const unsigned S = unsigned(slots_count_);
  for (unsigned back = S - unsigned(s_.history_depth); back <= S && back <= index; ++back)
    TWINMAF_CUDA_TRY(cudaStreamWaitEvent(cs, static_cast<cudaEvent_t>(pipe_->done(int((index - back) % S))), 0));
  if (s_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.upload_marks[0]), cs));
  TWINMAF_RETURN_IF_ERROR(ring_->upload(w.slot, *w.set.ref, w.set.dis, cs));
  if (s_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.upload_marks[1]), cs));
  TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.uploaded), cs));
  for (unsigned l = 0; l < lanes(); ++l) {
    DeviceFrame& f = frames_[l];
    f = DeviceFrame{};
    f.index = index;
    f.ref = ring_->ref(w.slot);
    f.dis = ring_->dis(w.slot, l);
    for (int k = 0; k < s_.history_depth; ++k) {
      const int slot = w.prev_slot[size_t(k)];
      if (slot < 0) continue;
      f.prev_ref[size_t(k)] = ring_->ref(slot);
      f.prev_dis[size_t(k)] = ring_->dis(slot, l);
    }
  }
  return pipe_->enqueue(w.slot, frames_, active_, s.uploaded.get());
}

Status CudaRun::collect(LoopFrame& w) {
  TWINMAF_RETURN_IF_ERROR(s_.ctx->bind());
  auto t = Clock::now();
  TWINMAF_RETURN_IF_ERROR(pipe_->wait(w.slot));
  t_wait_ += ms_since(t);
  if (s_.profile) {
    const auto elapsed = [](const gpu::Event& a, const gpu::Event& b) {
      float ms = 0;
      cudaEventElapsedTime(&ms, as_event(a), as_event(b));
      return static_cast<double>(ms);
    };
    const SlotState& s = slots_[size_t(w.slot)];
    const std::vector<gpu::Event>& m = pipe_->marks(w.slot);
    t_upload_ += elapsed(s.upload_marks[0], s.upload_marks[1]);
    for (size_t k = 0; k < stages_; ++k) t_stage_[k] += elapsed(m[k], m[k + 1]);
    t_readback_ += elapsed(m[stages_], m[stages_ + 1]);
    t_gpu_ += elapsed(s.upload_marks[0], m[stages_ + 1]);
    ++device_frames_;
  }
  const uint8_t* host_terms = pipe_->host_terms(w.slot);
  if (s_.device_range_check) {
    bool over = false;
    for (std::size_t off : range_offset_) over = over || gpu::range_check_or(host_terms + off) > (1u << s_.fmt.bpc) - 1;
    if (over) {
      TWINMAF_RETURN_IF_ERROR(s_.host_range_check(w.set));
      TWINMAF_FAIL(kInternal, "frame {}: the device range check and the host's disagree", w.set.index);
    }
  }
  for (unsigned l = 0; l < lanes(); ++l)
    for (size_t i = 0; i < s_.lanes[l].size(); ++i) {
      const DeviceFeature& f = s_.lanes[l][i];
      if (!f.twin || !active(f, w.set.index)) continue;
      if (f.shared_with_lane0) {
        w.terms[l][i] = w.terms[0][i];
        continue;
      }
      std::shared_ptr<FrameTerms> terms = f.configured->make_terms();
      f.twin->unpack(host_terms + offset_[l][i], *terms);
      w.terms[l][i] = std::move(terms);
    }
  return ok_status();
}

Status CudaRun::finish() {
  TWINMAF_RETURN_IF_ERROR(s_.ctx->bind());
  TWINMAF_CUDA_TRY(cudaStreamSynchronize(as_stream(copy_)));
  return ok_status();
}

void CudaRun::profile(unsigned frames, std::vector<std::string>& lines) const {
  const double n = frames;
  const double g = device_frames_ ? device_frames_ : 1;
  lines.push_back(fmt::format("  ring                {:9} slots, {} planes uploaded, {} frames in the loop",
                              slots_count_, s_.ring_planes, s_.frames_in_loop));
  for (int p = 0; ring_ && p < s_.ring_planes; ++p)
    lines.push_back(fmt::format("  upload plane {}      {:9} bytes/frame ({} pictures, each picture one copy)", p,
                                (1 + lanes()) * ring_->plane_bytes(p), 1 + lanes()));
  lines.push_back(fmt::format("  upload (device)     {:9.3f} ms/frame", t_upload_ / g));
  for (unsigned l = 0; l < lanes(); ++l)
    for (size_t i = 0; i < s_.lanes[l].size(); ++i) {
      const std::size_t k = stage_of_[l][i];
      const std::size_t by = by_.empty() ? SIZE_MAX : by_[l][i];
      if (k == SIZE_MAX && by == SIZE_MAX) continue;
      const std::string name = s_.lanes[l][i].twin->name();
      const std::string label = lanes() > 1 ? fmt::format("{} [{}]", name, l) : name;
      if (k != SIZE_MAX)
        lines.push_back(fmt::format("  kernel {:<24} {:9.3f} ms/frame", label, t_stage_[k] / g));
      else
        lines.push_back(fmt::format("  kernel {:<24} in {}'s", label, s_.lanes[l][by].twin->name()));
    }
  if (!range_checks_.empty()) {
    double t = 0;
    for (size_t k = stages_ - range_checks_.size(); k < stages_; ++k) t += t_stage_[k];
    lines.push_back(fmt::format("  kernel {:<24} {:9.3f} ms/frame (sample range check, {} lanes)",
                                range_checks_[0]->name(), t / g, lanes()));
  }
  lines.push_back(fmt::format("  readback            {:9.3f} ms/frame ({} bytes)", t_readback_ / g, terms_bytes_));
  lines.push_back(fmt::format("  device total        {:9.3f} ms/frame", t_gpu_ / g));
  lines.push_back(fmt::format("  host wait (device)  {:9.3f} ms/frame", t_wait_ / n));
}

}  // namespace

Result<std::unique_ptr<DeviceRun>> make_device_run(DeviceRunSetup setup) {
  auto run = std::make_unique<CudaRun>(std::move(setup));
  TWINMAF_RETURN_IF_ERROR(run->init());
  return std::unique_ptr<DeviceRun>(std::move(run));
}

}  // namespace twinmaf
