#include "gpu/device_pipeline.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "base/capture_lock.h"
#include "gpu/cuda_check.h"

namespace twinmaf::gpu {

namespace {

// Captured sequences kept per pipeline; frames with a new key beyond this
// (only with many subsample phases) are launched directly.
constexpr std::size_t kMaxGraphs = 64;

cudaStream_t as_stream(const Stream& s) { return static_cast<cudaStream_t>(s.get()); }
cudaEvent_t as_event(const Event& e) { return static_cast<cudaEvent_t>(e.get()); }

template <typename T>
void append(std::string& k, const T& v) {
  k.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

}  // namespace

struct DevicePipeline::Graph {
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
  }
};

DevicePipeline::~DevicePipeline() = default;

Status add_bank_instances(PipelineStage& t, const PipelineMode& mode,
                          const std::function<Result<std::unique_ptr<DeviceStage>>()>& make,
                          std::vector<std::unique_ptr<DeviceStage>>& owned) {
  while (t.banks.size() < std::size_t(mode.bank_count())) {
    TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<DeviceStage> stage, make());
    t.banks.push_back(stage.get());
    owned.push_back(std::move(stage));
  }
  return ok_status();
}

Result<std::unique_ptr<DevicePipeline>> DevicePipeline::create(std::vector<PipelineStage> stages,
                                                               std::size_t terms_bytes, int slots, PipelineMode mode) {
  std::unique_ptr<DevicePipeline> p(new DevicePipeline());
  mode.banks = mode.bank_count();
  if (mode.profile) mode.graphs = false;
  for (const PipelineStage& t : stages)
    if (t.banks.size() < std::size_t(mode.banks))
      TWINMAF_FAIL(kInternal, "device pipeline: a stage has {} instances for {} banks", t.banks.size(), mode.banks);
  p->mode_ = mode;
  p->fork_ = !mode.profile && stages.size() > 1;
  p->terms_bytes_ = terms_bytes;
  for (int b = 0; b < mode.banks; ++b) {
    Bank bank;
    TWINMAF_ASSIGN_OR_RETURN(bank.launch, Stream::create());
    for (std::size_t k = 0; p->fork_ && k < stages.size(); ++k) {
      TWINMAF_ASSIGN_OR_RETURN(Stream s, Stream::create());
      bank.stage.push_back(std::move(s));
    }
    p->banks_.push_back(std::move(bank));
  }
  TWINMAF_ASSIGN_OR_RETURN(p->fork_event_, Event::create(false));
  for (std::size_t k = 0; k < stages.size(); ++k) {
    TWINMAF_ASSIGN_OR_RETURN(Event e, Event::create(false));
    p->join_events_.push_back(std::move(e));
  }
  for (int i = 0; i < slots; ++i) {
    Slot s;
    TWINMAF_ASSIGN_OR_RETURN(s.terms, DeviceBuffer::create(terms_bytes));
    TWINMAF_ASSIGN_OR_RETURN(s.host, PinnedBuffer::create(terms_bytes));
    TWINMAF_ASSIGN_OR_RETURN(s.done, Event::create(false));
    for (std::size_t k = 0; mode.profile && k < stages.size() + 2; ++k) {
      TWINMAF_ASSIGN_OR_RETURN(Event e, Event::create(true));
      s.marks.push_back(std::move(e));
    }
    p->slots_.push_back(std::move(s));
  }
  p->stages_ = std::move(stages);
  return p;
}

void DevicePipeline::key(int slot, int b, const std::vector<DeviceFrame>& frames, const std::vector<bool>& active,
                         std::string& k) const {
  k.clear();
  append(k, std::min(frames.front().index, kReplayIndex));
  append(k, slot);
  append(k, b);
  for (bool a : active) k.push_back(a ? '1' : '0');
  const auto add = [&](const DevicePicture& p) {
    for (int i = 0; i < 3; ++i) {
      append(k, p.planes[i]);
      append(k, p.pitch[i]);
    }
  };
  for (const DeviceFrame& f : frames) {
    add(f.ref);
    add(f.dis);
    for (int h = 0; h < kMaxHistory; ++h) {
      add(f.prev_ref[size_t(h)]);
      add(f.prev_dis[size_t(h)]);
    }
  }
}

Status DevicePipeline::launch(int slot, int b, const std::vector<DeviceFrame>& frames,
                              const std::vector<bool>& active) {
  const Bank& bank = banks_[std::size_t(b)];
  const Slot& s = slots_[std::size_t(slot)];
  const cudaStream_t ls = as_stream(bank.launch);
  if (mode_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.marks[0]), ls));
  TWINMAF_CUDA_TRY(cudaMemsetAsync(s.terms.get(), 0, terms_bytes_, ls));
  if (fork_) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(fork_event_), ls));
  for (std::size_t k = 0; k < stages_.size(); ++k) {
    const PipelineStage& t = stages_[k];
    if (active[k]) {
      const cudaStream_t ts = fork_ ? as_stream(bank.stage[k]) : ls;
      if (fork_) TWINMAF_CUDA_TRY(cudaStreamWaitEvent(ts, as_event(fork_event_), 0));
      TWINMAF_RETURN_IF_ERROR(t.banks[std::size_t(b)]->enqueue(frames[t.lane], s.terms.get() + t.offset, ts));
      if (fork_) {
        TWINMAF_CUDA_TRY(cudaEventRecord(as_event(join_events_[k]), ts));
        TWINMAF_CUDA_TRY(cudaStreamWaitEvent(ls, as_event(join_events_[k]), 0));
      }
    }
    if (mode_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.marks[k + 1]), ls));
  }
  TWINMAF_CUDA_TRY(cudaMemcpyAsync(s.host.get(), s.terms.get(), terms_bytes_, cudaMemcpyDeviceToHost, ls));
  if (mode_.profile) TWINMAF_CUDA_TRY(cudaEventRecord(as_event(s.marks.back()), ls));
  return ok_status();
}

Status DevicePipeline::enqueue(int slot, const std::vector<DeviceFrame>& frames, const std::vector<bool>& active,
                               void* ready) {
  const int b = static_cast<int>(frames_++ % banks_.size());
  const cudaStream_t ls = as_stream(banks_[std::size_t(b)].launch);
  if (ready) TWINMAF_CUDA_TRY(cudaStreamWaitEvent(ls, static_cast<cudaEvent_t>(ready), 0));
  Graph* graph = nullptr;
  if (mode_.graphs) {
    key(slot, b, frames, active, key_);
    auto it = graphs_.find(key_);
    if (it != graphs_.end()) {
      graph = it->second.get();
    } else if (graphs_.size() < kMaxGraphs) {
      // Capturing records the sequence without running it; the replay below
      // runs it after the `ready` wait above.
      std::unique_lock capturing(capture_lock());
      TWINMAF_CUDA_TRY(cudaStreamBeginCapture(ls, cudaStreamCaptureModeThreadLocal));
      const Status st = launch(slot, b, frames, active);
      cudaGraph_t g = nullptr;
      const cudaError_t end = cudaStreamEndCapture(ls, &g);
      capturing.unlock();
      auto owned = std::make_unique<Graph>();
      cudaError_t inst = cudaSuccess;
      if (st.ok() && end == cudaSuccess) inst = cudaGraphInstantiate(&owned->exec, g, 0);
      if (g) cudaGraphDestroy(g);
      TWINMAF_RETURN_IF_ERROR(st);
      TWINMAF_CUDA_TRY(end);
      TWINMAF_CUDA_TRY(inst);
      graph = owned.get();
      graphs_.emplace(key_, std::move(owned));
    }
  }
  if (graph)
    TWINMAF_CUDA_TRY(cudaGraphLaunch(graph->exec, ls));
  else
    TWINMAF_RETURN_IF_ERROR(launch(slot, b, frames, active));
  TWINMAF_CUDA_TRY(cudaEventRecord(as_event(slots_[std::size_t(slot)].done), ls));
  return ok_status();
}

Status DevicePipeline::wait(int slot) const {
  TWINMAF_CUDA_TRY(cudaEventSynchronize(as_event(slots_[std::size_t(slot)].done)));
  return ok_status();
}

}  // namespace twinmaf::gpu
