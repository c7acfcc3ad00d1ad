#include "engine/loop_plan.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "io/planar.h"

namespace twinmaf {

namespace {

// pread threads copy 5 to 8 GB/s each out of the page cache: the cores the
// loop leaves (less the calling thread and one), at most twelve; ten below 4K
// (pictures under 6 MB) when finishes settle on workers, whose share grows
// with the frame rate (docs/benchmarks.md, "readers").
unsigned reader_threads(const LoopRequest& q, const InputPlan& in, bool any_settles) {
  if (q.readers) return q.readers;
  uint64_t picture_bytes = 0;
  for (int p = 0; p < std::max(in.ref_planes, in.dis_planes); ++p) picture_bytes += packed_plane_bytes(q.fmt, p);
  const unsigned most = any_settles && picture_bytes < (uint64_t(6) << 20) ? 10u : 12u;
  const unsigned hw = std::max(1u, q.hardware_threads);
  return std::clamp(hw - std::min(hw, 2u), 1u, most);
}

// Where each input decodes (InputPlan::decoders). NVDEC writes pictures in
// device memory, so it needs every feature on a twin and no host check of
// the samples (InputPlan::device_input).
void plan_decoders(const LoopRequest& q, InputPlan& in) {
  const std::string refusal = !q.no_nvdec.empty() ? q.no_nvdec
                              : !in.device_input
                                  ? "some feature runs on the CPU or the samples' range is checked there, which "
                                    "needs pictures in host memory"
                                  : "";
  std::vector<size_t> nvdec;  // inputs NVDEC may take
  unsigned decoding = 0;
  in.decoders.assign(q.inputs.size(), InputDecoder{});
  const auto count = [&](DecodeOn on) {
    return unsigned(
        std::count_if(in.decoders.begin(), in.decoders.end(), [&](const InputDecoder& d) { return d.on == on; }));
  };
  for (size_t k = 0; k < q.inputs.size(); ++k) {
    const PlannedInput& input = q.inputs[k];
    InputDecoder& d = in.decoders[k];
    if (!input.decodes) continue;
    ++decoding;
    const std::string& why = !refusal.empty() ? refusal : input.nvdec_refusal;
    if (input.decode == Decode::kCpu) {
      d = {DecodeOn::kCpu, "--decode cpu"};
    } else if (!why.empty()) {
      d = {input.decode == Decode::kNvdec ? DecodeOn::kNone : DecodeOn::kCpu, why};
      if (input.decode == Decode::kNvdec && in.nvdec_refused < 0) in.nvdec_refused = int(k);
    } else if (input.decode == Decode::kNvdec) {
      d = {DecodeOn::kNvdec, "--decode nvdec"};
    } else {
      d = {DecodeOn::kNvdec, "NVDEC takes it"};
      nvdec.push_back(k);  // auto's
    }
  }
  // auto: the CPU's share of the decoding inputs, H.264 streams first, then
  // the last distorted ones of those left to auto (the reference feeds
  // every lane).
  std::stable_partition(nvdec.begin(), nvdec.end(), [&](size_t k) { return !q.inputs[k].h264; });
  const int cores = std::max(1, q.cores);
  const size_t cpu_share = size_t(decoding) * size_t(cores) / size_t(cores + kNvdecCores);
  size_t on_cpu = count(DecodeOn::kCpu);
  for (; on_cpu < cpu_share && !nvdec.empty(); ++on_cpu) {
    in.decoders[nvdec.back()] = {DecodeOn::kCpu, fmt::format("CPU decoders share the {} compressed inputs with "
                                                             "NVDEC ({} cores: {} on the CPU)",
                                                             decoding, cores, cpu_share)};
    nvdec.pop_back();
  }
  // The machine's threads divided among the CPU inputs (decoders idle once
  // their input is read ahead, so they share the whole machine with the
  // loop; kDecodeThreadsPerCore where every feature is on the GPU), in
  // decoders of kCpuDecoderThreads; NVDEC's sessions among its inputs.
  const unsigned cpu = count(DecodeOn::kCpu), gpu = count(DecodeOn::kNvdec);
  const unsigned budget = std::max(1u, q.hardware_threads) * (in.device_input ? kDecodeThreadsPerCore : 1u);
  const unsigned cpu_threads = cpu ? std::max(1u, budget / cpu) : 0;
  unsigned parallel = 0;
  for (InputDecoder& d : in.decoders) {
    if (d.on == DecodeOn::kCpu) {
      d.decoders = q.decoders ? q.decoders : std::max(1u, cpu_threads / kCpuDecoderThreads);
      d.threads = std::max(1u, cpu_threads / d.decoders);
    } else if (d.on == DecodeOn::kNvdec) {
      d.decoders = q.decoders ? q.decoders : std::max(1u, kNvdecSessions / gpu);
    }
    parallel += d.decoders > 1;
  }
  for (InputDecoder& d : in.decoders)
    if (d.decoders > 1) d.ahead_bytes = q.memory_bytes / kDecodeAheadShare / parallel;
  if (decoding > 0) in.read_ahead = kReadAhead;
}

}  // namespace

LoopPlan plan_loop(const LoopRequest& q) {
  LoopPlan p;
  InputPlan& in = p.input;
  bool all_twins = true, any_settles = false;
  for (const PlannedFeature& f : q.features) {
    any_settles = any_settles || f.settles;
    in.ref_planes = std::max(in.ref_planes, plane_count(f.needs.ref, q.fmt));
    in.dis_planes = std::max(in.dis_planes, plane_count(f.needs.dis, q.fmt));
    p.ref_depth = std::max(p.ref_depth, f.needs.prev_ref);
    p.dis_depth = std::max(p.dis_depth, f.needs.prev_dis);
    if (f.twin) {
      p.twin_depth = std::max({p.twin_depth, f.needs.prev_ref, f.needs.prev_dis});
      p.ring_planes =
          std::max({p.ring_planes, plane_count(f.needs.ref, q.fmt), plane_count(f.needs.dis, q.fmt), 1});
    }
    all_twins = all_twins && f.twin;
  }
  p.device = p.ring_planes > 0;
  p.any_cpu = !all_twins;

  in.pinned = p.device;
  p.device_range_check = q.fmt.bpc > 8 && q.fmt.bpc < 16 && all_twins && in.ref_planes == p.ring_planes &&
                         in.dis_planes == p.ring_planes;
  in.host_range_check_from = p.device_range_check ? p.ring_planes : 0;
  // (16-bit samples cannot exceed their range: no check at all.)
  in.device_input = all_twins && (q.fmt.bpc == 8 || q.fmt.bpc == 16 || p.device_range_check);
  if (in.pinned) in.reader_threads = reader_threads(q, in, any_settles);
  plan_decoders(q, in);

  // The loop runs on the caller's thread, a window of frames apart, unless
  // CPU features can use workers: a oneTBB pipeline carries a frame through
  // its stages on one thread, so a run without CPU features would wait for
  // the device frame by frame there. With workers, enough frames for the CPU
  // features to keep them busy. Threads beyond the machine's add nothing
  // (oneTBB would refuse them with a warning on stderr) but frames in the
  // loop, memory and ring slots.
  const int window = p.device ? kDeviceWindow : 1;
  p.workers = q.threads > 0 && p.any_cpu;
  p.threads = std::min(int(q.threads), q.cores);
  p.frames_in_loop = p.workers ? std::max(window, 2 * p.threads + 2) : window;

  // A segment's terms go to its sink unsettled. Otherwise every finish that
  // settles does: in the pipeline's parallel stage, else on a worker arena
  // (all its slots for workers: the caller enqueues and never joins, within
  // oneTBB's worker limit), or on the calling thread. A device run settles
  // on workers even at --threads 0 (which keeps CPU features on the calling
  // thread): settling there would hold back the frames fed to the device; a
  // quarter of the cores, at most four.
  p.settle = any_settles && !q.segment;
  if (p.settle && !p.workers) {
    const int wanted = q.threads > 0 ? p.threads : p.device ? std::clamp(q.cores / 4, 1, 4) : 0;
    p.settle_threads = wanted > 0 ? std::max(1, std::min(wanted, q.cores - 1)) : 0;
  }
  return p;
}

std::string LoopPlan::describe() const {
  const std::string settling = !settle                ? ""
                               : workers              ? ", settling in the pipeline"
                               : settle_threads > 0   ? fmt::format(", settling on {} workers", settle_threads)
                                                      : ", settling on the calling thread";
  return fmt::format("{}, {} frame{} in the loop{}", workers ? fmt::format("pipeline of {} threads", threads) : "inline",
                     frames_in_loop, frames_in_loop == 1 ? "" : "s", settling);
}

}  // namespace twinmaf
