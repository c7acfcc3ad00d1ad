// The plan of one run of the frame loop (engine/frame_loop.h), decided once
// when a session is prepared from what its features need and where they run:
// what the inputs must provide, whether a device takes part, which driver
// carries frames through the stages, how many frames are in the loop at once,
// and where finishes settle. A pure function of its request, so every policy
// is unit-tested on its own (tests/unit/loop_plan_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/picture.h"
#include "features/feature.h"
#include "twinmaf/types.h"

namespace twinmaf {

// Where an input is decoded (VideoSource::set_decoder).
enum class DecodeOn : uint8_t { kNone, kCpu, kNvdec };
struct InputDecoder {
  DecodeOn on = DecodeOn::kNone;  // kNone: the input does not decode, or NVDEC was refused
  std::string why;                // for --verbose, or the refusal
  // Decoders of the input at once (each on its stretches of the stream, where
  // it allows), each CPU decoder's threads, and the decoded pictures they
  // may hold ahead of the reader (VideoSource::Decoder).
  unsigned decoders = 1;
  unsigned threads = 0;
  uint64_t ahead_bytes = 0;
};

// What a prepared session needs of its inputs.
struct InputPlan {
  int ref_planes = 1;  // planes read of every reference picture
  int dis_planes = 1;  // ... of every distorted picture
  bool pinned = false;  // pictures a GPU uploads: allocate them with allocator()
  // Planes below this are range-checked on the device (above 8 bits); the
  // inputs check the rest.
  int host_range_check_from = 0;
  unsigned reader_threads = 1;  // parallel raw readers worth running
  // Inputs that decode (FFmpeg): where and how each input decodes (reference
  // first). With any decoder, every input is read on a thread of its own, at
  // most `read_ahead` frames ahead.
  std::vector<InputDecoder> decoders;
  unsigned read_ahead = 0;
  // --decode nvdec that cannot be honoured: the input (decoders[k].why says why); -1: none.
  int nvdec_refused = -1;
  // Pictures may arrive in device memory (Scorer::push_device): every
  // feature runs on a twin and no host check reads the samples.
  bool device_input = false;
};

// One registered feature as the plan sees it (lane 0; every lane has the
// same features).
struct PlannedFeature {
  FeatureNeeds needs;
  bool twin = false;     // runs on its CUDA twin
  bool settles = false;  // Extractor::settles()
};

// An input as the plan sees it.
struct PlannedInput {
  bool decodes = false;       // VideoSource::decodes
  std::string nvdec_refusal;  // VideoSource::nvdec_refusal (empty: NVDEC may take it)
  Decode decode = Decode::kAuto;  // --decode's choice for it
  bool h264 = false;              // VideoSource::h264
};

struct LoopRequest {
  VideoFormat fmt;
  std::vector<PlannedFeature> features;
  unsigned threads = 0;  // SessionConfig::threads
  unsigned readers = 0;  // SessionConfig::readers (0: auto)
  bool segment = false;  // terms go to a sink, not to finish()
  std::vector<PlannedInput> inputs;  // files: the reference, then each distorted input
  std::string no_nvdec;  // why the session has no GPU for NVDEC (empty: it has one)
  unsigned decoders = 0;  // SessionConfig::decoders (0: the plan's)
  int cores = 1;         // oneTBB's default concurrency
  unsigned hardware_threads = 1;
  uint64_t memory_bytes = 0;  // the machine's physical memory
};

struct LoopPlan {
  InputPlan input;
  // History the features read (FrameHistory), and the deepest a twin reads.
  int ref_depth = 0;
  int dis_depth = 0;
  int twin_depth = 0;
  // Device: some feature runs on a twin; planes uploaded per picture.
  bool device = false;
  int ring_planes = 0;
  // Above 8 bits, every feature on a twin and the inputs reading exactly the
  // uploaded planes: the device checks the uploads' sample range.
  bool device_range_check = false;
  bool any_cpu = false;  // some feature runs on the CPU
  // The pipeline driver (a oneTBB pipeline of `threads` workers) when CPU
  // features can use workers; else the inline driver on the calling thread.
  bool workers = false;
  int threads = 0;
  // Frames admitted but not completed, at most.
  int frames_in_loop = 1;
  // Finishes settle in the loop (Extractor::settle). The pipeline driver
  // settles in a parallel stage; the inline driver on a worker arena of
  // settle_threads, or on the calling thread when that is 0.
  bool settle = false;
  int settle_threads = 0;

  // "pipeline, 10 frames in the loop, settling in the pipeline" (--profile).
  std::string describe() const;
};

// Frames each input is read ahead of the loop where some input decodes: the
// decoders' own threads already hold a frame each in flight.
inline constexpr unsigned kReadAhead = 3;

// NVDEC's engines on one GPU decode about as many frames per second as this
// many CPU cores decode with twinmaf's CPU decoders (H100 host, 16 cores,
// whole runs: a 1080p reference and 8 HEVC encodes, 2443 frames/s all on
// NVDEC against 920 all on the CPU; a 4K H.264 + HEVC pair, 387 against
// 190): under --decode auto, CPU decoders take that share of the compressed
// inputs, H.264 streams first (NVDEC decodes H.264 at about two thirds of
// its HEVC rate, the cores either at about the same rate).
inline constexpr int kNvdecCores = 32;

// Decoders of one input at once: NVDEC sessions per GPU, shared by its
// NVDEC inputs (H200 host, 4K HEVC: one session ~230 frames/s, 7 ~430), and
// threads per CPU decoder (one decoder of 16 threads ~210 frames/s, 4 of 4
// ~420-450): libavcodec's frame threads scale to about 4.
inline constexpr unsigned kNvdecSessions = 6;
inline constexpr unsigned kCpuDecoderThreads = 4;
// CPU decoder threads per hardware thread where the cores do nothing but
// decode (every feature on the GPU): a frame thread waits on its reference
// frames' progress, and a second thread per core fills those waits (H100
// host, FFmpeg: 9 1080p streams at 16 threads each 1893 frames/s against
// 1084-1379 at 1-2 each; a 4K pair at 16 threads each 137 pairs/s against
// 101 at 8 each).
inline constexpr unsigned kDecodeThreadsPerCore = 2;

// Decoded pictures held ahead by an input's decoders, at most: this part of
// the machine's memory, shared by the inputs with several decoders.
inline constexpr unsigned kDecodeAheadShare = 8;

// Frames a device run keeps between admit and complete when nothing else
// asks for more (docs/benchmarks.md has the runs that chose it).
inline constexpr int kDeviceWindow = 4;

LoopPlan plan_loop(const LoopRequest& request);

}  // namespace twinmaf
