// The frame loop's plan (engine/loop_plan.h): which driver, how many frames in
// the loop, where finishes settle, what the inputs provide, decided from the
// features' needs and backends alone.
#include "engine/loop_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

namespace twinmaf {
namespace {

constexpr FeatureNeeds kLuma{};
constexpr FeatureNeeds kAllPlanes{.ref = Planes::kAll, .dis = Planes::kAll};
constexpr FeatureNeeds kMotion{.dis = Planes::kNone, .prev_ref = 1, .temporal = true};

LoopRequest request(VideoFormat fmt, std::vector<PlannedFeature> features, unsigned threads, int cores = 16) {
  LoopRequest q;
  q.fmt = fmt;
  q.features = std::move(features);
  q.threads = threads;
  q.cores = cores;
  q.hardware_threads = static_cast<unsigned>(cores);
  return q;
}

const VideoFormat k1080p8{1920, 1080, PixFmt::k420, 8};
const VideoFormat k1080p10{1920, 1080, PixFmt::k420, 10};
const VideoFormat k4k8{3840, 2160, PixFmt::k420, 8};

TEST(LoopPlan, CpuRunWithoutThreadsIsInlineOneFrameAtATime) {
  const LoopPlan p = plan_loop(request(k1080p8, {{kLuma}, {kMotion}}, 0));
  EXPECT_FALSE(p.device);
  EXPECT_FALSE(p.workers);
  EXPECT_EQ(p.frames_in_loop, 1);
  EXPECT_FALSE(p.settle);
  EXPECT_FALSE(p.input.pinned);
  EXPECT_EQ(p.input.reader_threads, 1u);
  EXPECT_EQ(p.ref_depth, 1);
  EXPECT_EQ(p.dis_depth, 0);
  EXPECT_EQ(p.describe(), "inline, 1 frame in the loop");
}

TEST(LoopPlan, CpuSettlingWithoutThreadsSettlesOnTheCallingThread) {
  const LoopPlan p = plan_loop(request(k1080p8, {{kAllPlanes, false, true}}, 0));
  EXPECT_TRUE(p.settle);
  EXPECT_EQ(p.settle_threads, 0);
  EXPECT_EQ(p.input.ref_planes, 3);
  EXPECT_EQ(p.describe(), "inline, 1 frame in the loop, settling on the calling thread");
}

TEST(LoopPlan, CpuThreadsRunThePipelineWithTwoFramesPerThread) {
  const LoopPlan p = plan_loop(request(k1080p8, {{kLuma, false, true}}, 4));
  EXPECT_TRUE(p.workers);
  EXPECT_EQ(p.threads, 4);
  EXPECT_EQ(p.frames_in_loop, 10);
  EXPECT_TRUE(p.settle);
  EXPECT_EQ(p.describe(), "pipeline of 4 threads, 10 frames in the loop, settling in the pipeline");
  // Threads beyond the machine's are not used.
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma}}, 64, 8)).threads, 8);
}

TEST(LoopPlan, DeviceRunWithEveryFeatureOnATwinStaysInline) {
  // --threads does not make workers when no feature runs on the CPU; it
  // sizes the settling arena.
  for (unsigned threads : {0u, 1u, 4u}) {
    const LoopPlan p = plan_loop(request(k1080p8, {{kLuma, true, true}, {kMotion, true}}, threads));
    EXPECT_TRUE(p.device);
    EXPECT_FALSE(p.any_cpu);
    EXPECT_FALSE(p.workers);
    EXPECT_EQ(p.frames_in_loop, kDeviceWindow);
    EXPECT_EQ(p.ring_planes, 1);
    EXPECT_EQ(p.twin_depth, 1);
    EXPECT_TRUE(p.input.pinned);
    EXPECT_TRUE(p.input.device_input);
    EXPECT_EQ(p.settle_threads, threads == 0 ? 4 : int(threads)) << threads;
  }
  // At --threads 0 a quarter of the cores settle, at least one, at most four.
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma, true, true}}, 0, 2)).settle_threads, 1);
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma, true, true}}, 0, 8)).settle_threads, 2);
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma, true, true}}, 0, 64)).settle_threads, 4);
}

TEST(LoopPlan, DeviceRunWithCpuFeaturesUsesThePipeline) {
  const LoopPlan p = plan_loop(request(k1080p8, {{kLuma, true}, {kAllPlanes, false}}, 8));
  EXPECT_TRUE(p.device);
  EXPECT_TRUE(p.any_cpu);
  EXPECT_TRUE(p.workers);
  EXPECT_EQ(p.frames_in_loop, 18);
  EXPECT_EQ(p.ring_planes, 1);  // chroma is read by the CPU feature only
  EXPECT_EQ(p.input.ref_planes, 3);
  EXPECT_FALSE(p.input.device_input);
  EXPECT_FALSE(p.device_range_check);
  // Without threads the CPU features run inline beside the device's window.
  const LoopPlan q = plan_loop(request(k1080p8, {{kLuma, true}, {kAllPlanes, false}}, 0));
  EXPECT_FALSE(q.workers);
  EXPECT_EQ(q.frames_in_loop, kDeviceWindow);
}

TEST(LoopPlan, DeviceChecksTheRangeAboveEightBitsOnlyWhenItSeesEveryPlaneRead) {
  const LoopPlan p = plan_loop(request(k1080p10, {{kAllPlanes, true}}, 0));
  EXPECT_TRUE(p.device_range_check);
  EXPECT_EQ(p.input.host_range_check_from, 3);
  EXPECT_TRUE(p.input.device_input);
  const LoopPlan q = plan_loop(request(k1080p10, {{kLuma, true}, {kAllPlanes, false}}, 0));
  EXPECT_FALSE(q.device_range_check);
  EXPECT_EQ(q.input.host_range_check_from, 0);
  EXPECT_FALSE(q.input.device_input);
  EXPECT_FALSE(plan_loop(request(k1080p8, {{kLuma, true}}, 0)).device_range_check);
  EXPECT_FALSE(plan_loop(request({64, 64, PixFmt::k420, 16}, {{kLuma, true}}, 0)).device_range_check);
  EXPECT_TRUE(plan_loop(request({64, 64, PixFmt::k420, 16}, {{kLuma, true}}, 0)).input.device_input);
}

TEST(LoopPlan, ReadersTakeTheCoresTheLoopLeaves) {
  EXPECT_EQ(plan_loop(request(k4k8, {{kLuma, true}}, 0, 16)).input.reader_threads, 12u);
  EXPECT_EQ(plan_loop(request(k4k8, {{kLuma, true}}, 0, 8)).input.reader_threads, 6u);
  EXPECT_EQ(plan_loop(request(k4k8, {{kLuma, true}}, 0, 2)).input.reader_threads, 1u);
  // Pictures under 6 MB with finishes settling on workers: ten.
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma, true, true}}, 0, 16)).input.reader_threads, 10u);
  EXPECT_EQ(plan_loop(request(k1080p8, {{kLuma, true}}, 0, 16)).input.reader_threads, 12u);
  LoopRequest q = request(k1080p8, {{kLuma, true}}, 0, 16);
  q.readers = 3;
  EXPECT_EQ(plan_loop(q).input.reader_threads, 3u);
}

TEST(LoopPlan, SegmentsLeaveTheirTermsUnsettled) {
  LoopRequest q = request(k1080p8, {{kLuma, true, true}}, 0);
  q.segment = true;
  EXPECT_FALSE(plan_loop(q).settle);
}

std::vector<PlannedInput> compressed(size_t n, Decode decode = Decode::kAuto) {
  return std::vector<PlannedInput>(n, PlannedInput{true, "", decode});
}

void decode_all(LoopRequest& q, Decode decode) {
  for (PlannedInput& i : q.inputs) i.decode = decode;
}

unsigned count_on(const LoopPlan& p, DecodeOn on) {
  return unsigned(std::count_if(p.input.decoders.begin(), p.input.decoders.end(),
                                [&](const InputDecoder& d) { return d.on == on; }));
}

TEST(LoopPlan, CpuDecodersShareTheMachine) {
  LoopRequest q = request(k4k8, {{kLuma, true}}, 0);
  q.inputs = {{}, {}};  // raw inputs: no decoders, read in the loop
  EXPECT_EQ(plan_loop(q).input.read_ahead, 0u);
  EXPECT_EQ(count_on(plan_loop(q), DecodeOn::kNone), 2u);
  // Every feature on the GPU: kDecodeThreadsPerCore threads per hardware
  // thread divided among the inputs, in decoders of kCpuDecoderThreads where
  // there are that many.
  static_assert(kDecodeThreadsPerCore == 2 && kCpuDecoderThreads == 4);
  for (const auto& [inputs, hw, decoders, threads] :
       {std::tuple{1u, 16u, 8u, 4u}, {2u, 16u, 4u, 4u}, {9u, 16u, 1u, 3u}, {3u, 2u, 1u, 1u}, {2u, 2u, 1u, 2u},
        {3u, 16u, 2u, 5u}, {1u, 2u, 1u, 4u}}) {
    q.inputs = compressed(inputs, Decode::kCpu);
    q.hardware_threads = hw;
    const LoopPlan p = plan_loop(q);
    EXPECT_EQ(p.input.read_ahead, kReadAhead);
    EXPECT_EQ(count_on(p, DecodeOn::kCpu), inputs);
    for (const InputDecoder& d : p.input.decoders) {
      EXPECT_EQ(d.decoders, decoders) << inputs << " inputs, " << hw << " threads";
      EXPECT_EQ(d.threads, threads) << inputs << " inputs, " << hw << " threads";
    }
  }
  // --decoders: that many of each input's threads.
  q.inputs = compressed(1, Decode::kCpu);
  q.hardware_threads = 16;
  q.decoders = 3;
  EXPECT_EQ(plan_loop(q).input.decoders[0].decoders, 3u);
  EXPECT_EQ(plan_loop(q).input.decoders[0].threads, 10u);
  // A feature on the CPU shares the cores: one decoder thread per hardware thread.
  q = request(k4k8, {{kLuma, true}, {kLuma, false}}, 0);
  q.inputs = compressed(2, Decode::kCpu);
  q.hardware_threads = 16;
  for (const InputDecoder& d : plan_loop(q).input.decoders) {
    EXPECT_EQ(d.decoders, 2u);
    EXPECT_EQ(d.threads, 4u);
  }
}

TEST(LoopPlan, SeveralDecodersShareAPartOfTheMemory) {
  LoopRequest q = request(k4k8, {{kLuma, true}}, 0);
  q.memory_bytes = uint64_t(64) << 30;
  q.inputs = compressed(3, Decode::kCpu);
  q.hardware_threads = 16;  // 10 of 32 threads each: 2 decoders of 5
  for (const InputDecoder& d : plan_loop(q).input.decoders) EXPECT_EQ(d.ahead_bytes, q.memory_bytes / kDecodeAheadShare / 3);
  q.decoders = 1;  // one decoder reads ahead only the reader's frames
  for (const InputDecoder& d : plan_loop(q).input.decoders) EXPECT_EQ(d.ahead_bytes, 0u);
}

TEST(LoopPlan, NvdecDecodesForRunsWhollyOnTheGpu) {
  // Two inputs on two cores: the CPU's share is none.
  LoopRequest q = request(k4k8, {{kLuma, true}}, 0, 2);
  q.inputs = compressed(2);
  LoopPlan p = plan_loop(q);
  EXPECT_EQ(count_on(p, DecodeOn::kNvdec), 2u);
  for (const InputDecoder& d : p.input.decoders) EXPECT_EQ(d.decoders, kNvdecSessions / 2);
  EXPECT_EQ(p.input.read_ahead, kReadAhead);
  EXPECT_EQ(p.input.nvdec_refused, -1);
  // A raw reference beside a compressed encode: NVDEC takes the encode.
  q.inputs = {{}, {true, ""}};
  p = plan_loop(q);
  EXPECT_EQ(p.input.decoders[0].on, DecodeOn::kNone);
  EXPECT_EQ(p.input.decoders[1].on, DecodeOn::kNvdec);
  // 10-bit with the range checked on the device.
  q.fmt = k1080p10;
  EXPECT_EQ(count_on(plan_loop(q), DecodeOn::kNvdec), 1u);
}

TEST(LoopPlan, CpuDecodersTakeH264First) {
  // An H.264 reference and an HEVC encode on as many cores as NVDEC is
  // worth: one on the CPU, the H.264 one, with all the threads in decoders of
  // kCpuDecoderThreads; the HEVC on every session.
  LoopRequest q = request(k4k8, {{kLuma, true}}, 0, kNvdecCores);
  q.hardware_threads = unsigned(kNvdecCores);
  q.inputs = compressed(2);
  q.inputs[0].h264 = true;
  LoopPlan p = plan_loop(q);
  EXPECT_EQ(p.input.decoders[0].on, DecodeOn::kCpu);
  EXPECT_EQ(p.input.decoders[0].decoders, kNvdecCores * kDecodeThreadsPerCore / kCpuDecoderThreads);
  EXPECT_EQ(p.input.decoders[1].on, DecodeOn::kNvdec);
  EXPECT_EQ(p.input.decoders[1].decoders, kNvdecSessions);
  // Without H.264: the last encode.
  q.inputs[0].h264 = false;
  p = plan_loop(q);
  EXPECT_EQ(p.input.decoders[0].on, DecodeOn::kNvdec);
  EXPECT_EQ(p.input.decoders[1].on, DecodeOn::kCpu);
}

TEST(LoopPlan, AutoSharesManyInputsWithCpuDecoders) {
  // One reference and 8 encodes on 16 cores: 9 * 16 / (16 + kNvdecCores)
  // inputs on the CPU, the last encodes; the reference on NVDEC.
  LoopRequest q = request(k1080p8, {{kLuma, true}}, 0, 16);
  q.inputs = compressed(9);
  const LoopPlan p = plan_loop(q);
  const unsigned cpu = 9u * 16u / (16u + unsigned(kNvdecCores));
  EXPECT_EQ(count_on(p, DecodeOn::kCpu), cpu);
  EXPECT_EQ(count_on(p, DecodeOn::kNvdec), 9u - cpu);
  EXPECT_EQ(p.input.decoders[0].on, DecodeOn::kNvdec);
  EXPECT_EQ(p.input.decoders[8].on, DecodeOn::kCpu);
  EXPECT_EQ(p.input.decoders[8].decoders * p.input.decoders[8].threads, 16u * kDecodeThreadsPerCore / cpu);
  EXPECT_EQ(p.input.decoders[0].decoders, 1u);  // kNvdecSessions shared by 9 - cpu inputs
  // --decode nvdec: all of them.
  decode_all(q, Decode::kNvdec);
  EXPECT_EQ(count_on(plan_loop(q), DecodeOn::kNvdec), 9u);
  // Per input: what is chosen counts toward the CPU's share.
  decode_all(q, Decode::kAuto);
  q.inputs[0].decode = Decode::kCpu;
  q.inputs[1].decode = Decode::kNvdec;
  LoopPlan c = plan_loop(q);
  EXPECT_EQ(c.input.decoders[0].on, DecodeOn::kCpu);
  EXPECT_EQ(c.input.decoders[1].on, DecodeOn::kNvdec);
  EXPECT_EQ(count_on(c, DecodeOn::kCpu), cpu);
  // An input NVDEC refuses counts toward the CPU's share.
  decode_all(q, Decode::kAuto);
  q.inputs[3].nvdec_refusal = "libavcodec's libdav1d decoder has no CUDA hwaccel";
  const LoopPlan r = plan_loop(q);
  EXPECT_EQ(count_on(r, DecodeOn::kCpu), cpu);
  EXPECT_EQ(r.input.decoders[3].on, DecodeOn::kCpu);
  EXPECT_EQ(r.input.decoders[3].why, q.inputs[3].nvdec_refusal);
}

TEST(LoopPlan, NvdecRefusalsNameTheirReason) {
  // A feature on the CPU reads host pictures: auto decodes on the CPU,
  // nvdec names the first compressed input.
  LoopRequest q = request(k1080p8, {{kLuma, true}, {kLuma, false}}, 0, 2);
  q.inputs = {{}, {true, ""}, {true, ""}};
  LoopPlan p = plan_loop(q);
  EXPECT_EQ(count_on(p, DecodeOn::kCpu), 2u);
  EXPECT_NE(p.input.decoders[1].why.find("CPU"), std::string::npos);
  decode_all(q, Decode::kNvdec);
  p = plan_loop(q);
  EXPECT_EQ(p.input.nvdec_refused, 1);
  EXPECT_EQ(p.input.decoders[1].on, DecodeOn::kNone);
  // No GPU in the session.
  q = request(k1080p8, {{kLuma, true}}, 0, 2);
  q.inputs = compressed(2);
  q.no_nvdec = "the run uses no GPU";
  p = plan_loop(q);
  EXPECT_EQ(count_on(p, DecodeOn::kCpu), 2u);
  EXPECT_EQ(p.input.decoders[0].why, q.no_nvdec);
  // The input's own refusal.
  q.no_nvdec.clear();
  q.inputs[1].nvdec_refusal = "NVDEC decodes 4:2:0 and 4:4:4, not 422";
  decode_all(q, Decode::kNvdec);
  p = plan_loop(q);
  EXPECT_EQ(p.input.nvdec_refused, 1);
  EXPECT_EQ(p.input.decoders[1].why, q.inputs[1].nvdec_refusal);
}

}  // namespace
}  // namespace twinmaf
