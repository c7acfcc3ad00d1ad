// The frame loop's plan (engine/loop_plan.h): which driver, how many frames in
// the loop, where finishes settle, what the inputs provide, decided from the
// features' needs and backends alone.
#include "engine/loop_plan.h"

#include <gtest/gtest.h>

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

TEST(LoopPlan, DecodersShareTheMachine) {
  LoopRequest q = request(k4k8, {{kLuma, true}}, 0);
  EXPECT_EQ(plan_loop(q).input.decode_threads, 0u);  // raw inputs: no decoders, read in the loop
  EXPECT_EQ(plan_loop(q).input.read_ahead, 0u);
  for (const auto& [decoders, hw, threads] : {std::tuple{1u, 16u, 16u}, {2u, 16u, 8u}, {9u, 16u, 1u}, {3u, 2u, 1u},
                                               {2u, 2u, 1u}, {3u, 16u, 5u}}) {
    q.decoders = decoders;
    q.hardware_threads = hw;
    const LoopPlan p = plan_loop(q);
    EXPECT_EQ(p.input.decode_threads, threads) << decoders << " decoders, " << hw << " threads";
    EXPECT_EQ(p.input.read_ahead, kReadAhead);
  }
}

}  // namespace
}  // namespace twinmaf
