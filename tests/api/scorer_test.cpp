// The public C++ API (twinmaf/twinmaf.h), used as a program outside the
// library would: this target sees include/ only. Pushing pictures equals
// scoring files, bit for bit; progress, pooled values, summaries and result
// files agree with each other; misuse gets a Status, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/same_scores.h"
#include "tests/support/splitmix.h"
#include "twinmaf/twinmaf.h"

namespace {

using twinmaf::Backend;
using twinmaf::PicturePtr;
using twinmaf::PixFmt;
using twinmaf::ScorerConfig;
using twinmaf::VideoFormat;

// A moving ramp; dis = ref plus a seeded +-4 (splitmix64), samples of `bpc`.
struct Clip {
  VideoFormat f;
  int frames;
  std::vector<std::vector<uint32_t>> ref, dis;  // [frame][plane-major samples]
};

Clip make_clip(const VideoFormat& f, int frames, uint64_t seed) {
  Clip c{f, frames, {}, {}};
  const uint32_t max = (1u << f.bpc) - 1;
  for (int t = 0; t < frames; ++t) {
    std::vector<uint32_t> r, d;
    for (int p = 0; p < f.planes(); ++p)
      for (int y = 0; y < f.stored_h(p); ++y)
        for (int x = 0; x < f.stored_w(p); ++x) {
          const uint32_t v = static_cast<uint32_t>(((x + 3 * t) * 7 + y * 5 + p * 31) << (f.bpc - 8)) & max;
          const int64_t n = int64_t(v) + int64_t(twinmaf::test::splitmix64(seed) % 9) - 4;
          r.push_back(v);
          d.push_back(static_cast<uint32_t>(n < 0 ? 0 : n > max ? max : n));
        }
    c.ref.push_back(std::move(r));
    c.dis.push_back(std::move(d));
  }
  return c;
}

std::string write_raw(const Clip& c, bool dis, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream out(path, std::ios::binary);
  for (const auto& frame : dis ? c.dis : c.ref)
    for (uint32_t v : frame) {
      out.put(static_cast<char>(v & 0xff));
      if (c.f.bpc > 8) out.put(static_cast<char>(v >> 8));
    }
  return path;
}

void fill(twinmaf::Picture& pic, const std::vector<uint32_t>& samples) {
  const VideoFormat& f = pic.format();
  size_t k = 0;
  for (int p = 0; p < f.planes(); ++p)
    for (int y = 0; y < f.stored_h(p); ++y) {
      uint8_t* row = pic.mutable_data(p) + size_t(y) * size_t(pic.stride(p));
      for (int x = 0; x < f.stored_w(p); ++x, ++k) {
        if (f.bpc > 8)
          reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(samples[k]);
        else
          row[x] = static_cast<uint8_t>(samples[k]);
      }
    }
}

ScorerConfig config(unsigned threads) {
  ScorerConfig cfg;
  cfg.models = {"version=vmaf_v0.6.1"};
  cfg.features = {"psnr=enable_apsnr=true", "psnr_hvs"};
  cfg.threads = threads;
  cfg.backend = Backend::kCpu;
  return cfg;
}

TEST(Scorer, PushedPicturesEqualTheFiles) {
  for (const VideoFormat f : {VideoFormat{96, 64, PixFmt::k420, 8}, VideoFormat{65, 49, PixFmt::k444, 10}})
    for (unsigned threads : {0u, 2u}) {
      SCOPED_TRACE(testing::Message() << f.w << "x" << f.h << " " << f.bpc << "-bit, threads " << threads);
      const Clip c = make_clip(f, 7, 11);
      const twinmaf::RawParams raw{f.w, f.h, f.fmt, f.bpc};
      auto files = twinmaf::Scorer::create(config(threads));
      ASSERT_TRUE(files.ok()) << files.status().message();
      const twinmaf::Status st = (*files)->score({write_raw(c, false, "api_ref.yuv"), raw},
                                                 {{write_raw(c, true, "api_dis.yuv"), raw}});
      ASSERT_TRUE(st.ok()) << st.message();

      auto pushed = twinmaf::Scorer::create(config(threads));
      ASSERT_TRUE(pushed.ok());
      ASSERT_TRUE((*pushed)->open(f).ok());
      for (int t = 0; t < c.frames; ++t) {
        // One picture from the scorer's pool, one of the caller's own.
        auto ref = (*pushed)->new_picture();
        ASSERT_TRUE(ref.ok()) << ref.status().message();
        auto dis = std::make_shared<twinmaf::Picture>(f, twinmaf::host_allocator());
        fill(**ref, c.ref[size_t(t)]);
        fill(*dis, c.dis[size_t(t)]);
        const twinmaf::Status p = (*pushed)->push(*ref, {dis});
        ASSERT_TRUE(p.ok()) << p.message();
      }
      const twinmaf::Status fl = (*pushed)->flush();
      ASSERT_TRUE(fl.ok()) << fl.message();
      twinmaf::test::expect_same_scores(**files, **pushed);
      EXPECT_EQ((*files)->format(twinmaf::OutputFormat::kCsv), (*pushed)->format(twinmaf::OutputFormat::kCsv));
    }
}

TEST(Scorer, ProgressPooledSummaryAndFilesAgree) {
  const VideoFormat f{96, 64, PixFmt::k420, 8};
  const Clip c = make_clip(f, 5, 3);
  const twinmaf::RawParams raw{f.w, f.h, f.fmt, f.bpc};
  ScorerConfig cfg = config(2);
  std::vector<unsigned> seen;
  cfg.progress = [&](const twinmaf::Progress& p) {
    seen.push_back(p.frames);
    EXPECT_EQ(p.total, 5u);  // raw files: their size
  };
  auto s = twinmaf::Scorer::create(cfg);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->score({write_raw(c, false, "api_ref.yuv"), raw}, {{write_raw(c, true, "api_dis.yuv"), raw}}).ok());
  EXPECT_EQ(seen, (std::vector<unsigned>{1, 2, 3, 4, 5}));
  EXPECT_EQ((*s)->frames(), 5u);
  auto vmaf = (*s)->pooled("vmaf");
  ASSERT_TRUE(vmaf.ok()) << vmaf.status().message();
  double sum = 0;
  for (unsigned i = 0; i < 5; ++i) sum += *(*s)->score("vmaf", i);
  EXPECT_EQ(vmaf->mean, sum / 5);
  EXPECT_LE(vmaf->min, vmaf->mean);
  EXPECT_GE(vmaf->max, vmaf->mean);
  // libvmaf's names: the alias and the full name reach the same column.
  EXPECT_EQ((*s)->score("integer_adm2", 2), (*s)->score("VMAF_integer_feature_adm2_score", 2));
  ASSERT_EQ((*s)->summary().size(), 1u);
  char line[64];
  std::snprintf(line, sizeof line, "vmaf_v0.6.1: %f", vmaf->mean);
  EXPECT_EQ((*s)->summary()[0].text, line);
  const std::string json = (*s)->format(twinmaf::OutputFormat::kJson);
  EXPECT_NE(json.find("\"apsnr_y\""), std::string::npos);
  const std::string path = (std::filesystem::temp_directory_path() / "api_out.json").string();
  ASSERT_TRUE((*s)->write(path, twinmaf::OutputFormat::kJson).ok());
  std::ifstream in(path);
  const std::string file((std::istreambuf_iterator<char>(in)), {});
  // The file and the string differ only in fps (timed at each call).
  EXPECT_EQ(file.substr(file.find("\"frames\"")), json.substr(json.find("\"frames\"")));
  EXPECT_EQ((*s)->info().backends.size(), 5u);  // adm motion vif (the model), psnr psnr_hvs
}

// Stats over the per-frame values: the percentile rule (p/100 * (n-1),
// interpolated), population stddev, worst frames lowest first.
TEST(Scorer, StatsFollowTheFrames) {
  const VideoFormat f{96, 64, PixFmt::k420, 8};
  const Clip c = make_clip(f, 7, 11);
  const twinmaf::RawParams raw{f.w, f.h, f.fmt, f.bpc};
  ScorerConfig cfg;
  cfg.features = {"psnr"};
  cfg.stats = true;
  auto s = twinmaf::Scorer::create(cfg);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->score({write_raw(c, false, "st_ref.yuv"), raw}, {{write_raw(c, true, "st_dis.yuv"), raw}}).ok());
  std::vector<double> v;
  for (unsigned i = 0; i < 7; ++i) v.push_back(*(*s)->score("psnr_y", i));
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted[0], sorted[6]);  // the frames differ, so order matters
  auto st = (*s)->stats("psnr_y");
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->frames, 7u);
  EXPECT_EQ(st->p50, sorted[3]);
  EXPECT_DOUBLE_EQ(st->p5, sorted[0] + (sorted[1] - sorted[0]) * (0.05 * 6));
  double mean = 0, sq = 0;
  for (double x : v) mean += x / 7;
  for (double x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(st->stddev, std::sqrt(sq / 7), 1e-12);
  ASSERT_EQ(st->worst.size(), 7u);
  EXPECT_EQ(st->worst[0].second, sorted[0]);
  EXPECT_EQ(st->worst[6].second, sorted[6]);
  EXPECT_NE((*s)->format(twinmaf::OutputFormat::kJson).find("\"statistics\": {"), std::string::npos);
  EXPECT_EQ((*s)->stats("nope").status().code(), twinmaf::Code::kInvalidArgument);
}

TEST(Scorer, ScalingTexts) {
  EXPECT_EQ(twinmaf::parse_scaling("")->mode, twinmaf::Scaling::Mode::kToReference);
  EXPECT_EQ(twinmaf::parse_scaling("ref")->mode, twinmaf::Scaling::Mode::kToReference);
  EXPECT_EQ(twinmaf::parse_scaling("model")->mode, twinmaf::Scaling::Mode::kToModel);
  auto wh = twinmaf::parse_scaling("1920x1080");
  ASSERT_TRUE(wh.ok());
  EXPECT_EQ(wh->w, 1920);
  EXPECT_EQ(wh->h, 1080);
  for (const char* bad : {"x", "0x10", "10x", "-4x4", "+4x4", "4x4x4", "99999x4", "big"})
    EXPECT_FALSE(twinmaf::parse_scaling(bad).ok()) << bad;
  ScorerConfig cfg;
  cfg.features = {"psnr"};
  cfg.scaling.mode = twinmaf::Scaling::Mode::kToReference;
  cfg.scaling.scaler = "cubic";
  EXPECT_EQ(twinmaf::Scorer::create(cfg).status().code(), twinmaf::Code::kInvalidArgument);
}

TEST(Scorer, MisuseIsAStatus) {
  ScorerConfig bad;
  bad.features = {"no_such_feature"};
  EXPECT_EQ(twinmaf::Scorer::create(bad).status().code(), twinmaf::Code::kInvalidArgument);
  bad.features = {"psnr=enable_chroma=maybe"};
  EXPECT_FALSE(twinmaf::Scorer::create(bad).ok());
  bad = {};
  bad.models = {"version=vmaf_v9"};
  EXPECT_FALSE(twinmaf::Scorer::create(bad).ok());

  auto s = twinmaf::Scorer::create(config(0));
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE((*s)->push(nullptr, {nullptr}).ok());  // before open()
  EXPECT_FALSE((*s)->flush().ok());
  EXPECT_FALSE((*s)->pooled("vmaf").ok());  // no results yet
  const VideoFormat f{64, 48, PixFmt::k420, 10};
  ASSERT_TRUE((*s)->open(f).ok());
  EXPECT_FALSE((*s)->open(f).ok());  // one job per scorer
  auto pic = (*s)->new_picture();
  ASSERT_TRUE(pic.ok());
  const Clip c = make_clip(f, 1, 5);
  fill(**pic, c.ref[0]);
  EXPECT_EQ((*s)->push(*pic, {}).code(), twinmaf::Code::kInvalidArgument);  // one distorted picture expected
  auto other = std::make_shared<twinmaf::Picture>(VideoFormat{64, 48, PixFmt::k420, 8}, twinmaf::host_allocator());
  EXPECT_EQ((*s)->push(*pic, {other}).code(), twinmaf::Code::kInvalidArgument);  // not the opened format
  auto over = std::make_shared<twinmaf::Picture>(f, twinmaf::host_allocator());
  fill(*over, c.dis[0]);
  reinterpret_cast<uint16_t*>(over->mutable_data(0))[3] = 1024;  // above 10 bits
  const twinmaf::Status range = (*s)->push(*pic, {over});
  EXPECT_EQ(range.code(), twinmaf::Code::kBadInput) << range.message();
  EXPECT_NE(range.message().find("exceeds 10 bits"), std::string::npos) << range.message();
  // Nothing was scored: flush says so.
  EXPECT_FALSE((*s)->flush().ok());
}

std::string write_y4m(const Clip& c, bool dis, int shift, int bpc, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W" << c.f.w << " H" << c.f.h << " F25:1 Ip A1:1 C420" << (bpc > 8 ? "p" + std::to_string(bpc) : "")
      << "\n";
  for (const auto& frame : dis ? c.dis : c.ref) {
    out << "FRAME\n";
    for (uint32_t v : frame) {
      const uint32_t s = v << shift;
      out.put(static_cast<char>(s & 0xff));
      if (bpc > 8) out.put(static_cast<char>(s >> 8));
    }
  }
  return path;
}

// --aom_ctc v6.0's common_bitdepth: an 8-bit reference scored against a
// 10-bit distorted input is read at 10 bits, samples shifted up.
TEST(Scorer, CommonBitDepthReadsTheLowerDepthShiftedUp) {
  const VideoFormat f{96, 64, PixFmt::k420, 8};
  const Clip c = make_clip(f, 4, 9);
  const std::string ref8 = write_y4m(c, false, 0, 8, "api_ref8.y4m");
  const std::string ref10 = write_y4m(c, false, 2, 10, "api_ref10.y4m");
  const std::string dis10 = write_y4m(c, true, 2, 10, "api_dis10.y4m");
  ScorerConfig cfg = config(0);
  auto plain = twinmaf::Scorer::create(cfg);
  ASSERT_TRUE(plain.ok());
  const twinmaf::Status mismatch = (*plain)->score({ref8}, {{dis10}});
  EXPECT_EQ(mismatch.code(), twinmaf::Code::kBadInput);
  EXPECT_NE(mismatch.message().find("bit depths do not match"), std::string::npos) << mismatch.message();

  cfg.common_bitdepth = true;
  auto mixed = twinmaf::Scorer::create(cfg);
  auto same = twinmaf::Scorer::create(cfg);
  ASSERT_TRUE(mixed.ok() && same.ok());
  ASSERT_TRUE((*mixed)->score({ref8}, {{dis10}}).ok());
  ASSERT_TRUE((*same)->score({ref10}, {{dis10}}).ok());
  twinmaf::test::expect_same_scores(**mixed, **same);
}

TEST(Scorer, PresetsAndBackendChoices) {
  ScorerConfig cfg;
  EXPECT_FALSE(twinmaf::apply_preset("aom_ctc", "v9.0", cfg).ok());
  EXPECT_FALSE(twinmaf::apply_preset("other", "v1.0", cfg).ok());
  // Every preset's features exist; v6.0 and v7.0 read inputs at a common depth.
  for (const char* v : {"v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0"}) {
    ScorerConfig preset;
    ASSERT_TRUE(twinmaf::apply_preset("aom_ctc", v, preset).ok()) << v;
    EXPECT_EQ(preset.common_bitdepth, std::string(v) >= "v6.0") << v;
    EXPECT_EQ(preset.models.size(), 2u);
    EXPECT_TRUE(twinmaf::Scorer::create(preset).ok()) << v;
  }
  ScorerConfig nflx;
  ASSERT_TRUE(twinmaf::apply_preset("nflx_ctc", "v1.0", nflx).ok());
  EXPECT_FALSE(nflx.common_bitdepth);
  auto b = twinmaf::parse_backend_choice("cuda,psnr_hvs=cpu,vif=auto");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->backend, Backend::kCuda);
  ASSERT_EQ(b->per_feature.size(), 2u);
  EXPECT_EQ(b->per_feature[0], (std::pair<std::string, Backend>{"psnr_hvs", Backend::kCpu}));
  EXPECT_EQ(b->per_feature[1], (std::pair<std::string, Backend>{"vif", Backend::kAuto}));
  EXPECT_FALSE(twinmaf::parse_backend_choice("auto,nothing=cpu").ok());
  EXPECT_FALSE(twinmaf::parse_backend_choice("vif=gpu").ok());
  // Twice is an error, in either order.
  EXPECT_FALSE(twinmaf::parse_backend_choice("auto,psnr_hvs=cpu,psnr_hvs=cuda").ok());
  EXPECT_FALSE(twinmaf::parse_backend_choice("auto,psnr_hvs=cuda,psnr_hvs=cpu").ok());
  EXPECT_FALSE(twinmaf::parse_backend_choice("cpu,vif=cuda,cuda").ok());
  EXPECT_TRUE(twinmaf::has_feature("psnr"));
  EXPECT_FALSE(twinmaf::has_feature("nothing"));
}

}  // namespace

namespace {

TEST(ScoreMany, EachJobEqualsItsOwnScorer) {
  const VideoFormat f{96, 64, PixFmt::k420, 8}, g{65, 49, PixFmt::k444, 10};
  const Clip a = make_clip(f, 6, 5), b = make_clip(g, 4, 9);
  const twinmaf::RawParams ra{f.w, f.h, f.fmt, f.bpc}, rb{g.w, g.h, g.fmt, g.bpc};
  const auto job = [](ScorerConfig cfg, twinmaf::InputFile ref, twinmaf::InputFile dis) {
    twinmaf::Job j;
    j.config = std::move(cfg);
    j.reference = std::move(ref);
    j.distorted.push_back(std::move(dis));
    return j;
  };
  std::vector<twinmaf::Job> jobs;
  jobs.push_back(job(config(0), {write_raw(a, false, "many_a_ref.yuv"), ra}, {write_raw(a, true, "many_a_dis.yuv"), ra}));
  jobs.push_back(job(config(2), {"/nonexistent/ref.y4m", std::nullopt}, {"/nonexistent/dis.y4m", std::nullopt}));
  jobs.push_back(job(config(1), {write_raw(b, false, "many_b_ref.yuv"), rb}, {write_raw(b, true, "many_b_dis.yuv"), rb}));
  jobs.push_back(jobs[0]);
  jobs[3].config.distorted = 2;
  jobs[3].distorted.push_back(jobs[0].reference);  // the reference against itself too
  jobs[3].limits.frame_cnt = 4;
  for (unsigned in_flight : {1u, 3u}) {
    SCOPED_TRACE(testing::Message() << in_flight << " in flight");
    std::vector<std::unique_ptr<twinmaf::Scorer>> got(jobs.size());
    std::vector<twinmaf::Status> status(jobs.size(), twinmaf::Status(twinmaf::Code::kInternal, "not reported"));
    std::vector<int> calls(jobs.size(), 0);
    twinmaf::BatchOptions options;
    options.in_flight = in_flight;
    if (in_flight == 3) options.gpus = {0, 0};  // spread over two engines of device 0 (the CPU here)
    options.done = [&](size_t k, std::unique_ptr<twinmaf::Scorer> s, const twinmaf::Status& st) {
      ++calls[k];
      got[k] = std::move(s);
      status[k] = st;
    };
    twinmaf::score_many(jobs, options);
    EXPECT_EQ(calls, std::vector<int>(jobs.size(), 1));
    EXPECT_EQ(status[1].code(), twinmaf::Code::kIo) << status[1].message();
    for (size_t k : {size_t(0), size_t(2), size_t(3)}) {
      ASSERT_TRUE(status[k].ok()) << k << ": " << status[k].message();
      auto alone = twinmaf::Scorer::create(jobs[k].config);
      ASSERT_TRUE(alone.ok());
      ASSERT_TRUE((*alone)->score(jobs[k].reference, jobs[k].distorted, jobs[k].limits).ok());
      for (unsigned lane = 0; lane < jobs[k].distorted.size(); ++lane) {
        EXPECT_EQ(got[k]->frames(lane), (*alone)->frames(lane));
        EXPECT_EQ(got[k]->format(twinmaf::OutputFormat::kCsv, lane), (*alone)->format(twinmaf::OutputFormat::kCsv, lane));
      }
      twinmaf::test::expect_same_scores(*got[k], **alone);
    }
    EXPECT_EQ(got[3]->frames(0), 4u);
  }
}

TEST(ScoreMany, CancelReportsEveryJob) {
  const VideoFormat f{96, 64, PixFmt::k420, 8};
  const Clip a = make_clip(f, 3, 5);
  const twinmaf::RawParams ra{f.w, f.h, f.fmt, f.bpc};
  twinmaf::Job one;
  one.config = config(0);
  one.reference = {write_raw(a, false, "cancel_ref.yuv"), ra};
  one.distorted = {{write_raw(a, true, "cancel_dis.yuv"), ra}};
  std::vector<twinmaf::Job> jobs(5, one);
  twinmaf::BatchOptions options;
  options.cancel = std::make_shared<std::atomic<bool>>(true);
  size_t cancelled = 0, calls = 0;
  options.done = [&](size_t, std::unique_ptr<twinmaf::Scorer>, const twinmaf::Status& st) {
    ++calls;
    cancelled += st.code() == twinmaf::Code::kCancelled;
  };
  twinmaf::score_many(jobs, options);
  EXPECT_EQ(calls, jobs.size());
  EXPECT_EQ(cancelled, jobs.size());
  twinmaf::score_many({}, options);  // no job: returns at once

  // Running jobs stop: endless inputs (raw /dev/zero), cancelled after they start.
  one.reference = {"/dev/zero", ra};
  one.distorted = {{"/dev/zero", ra}};
  std::vector<twinmaf::Job> endless(3, one);
  options.cancel->store(false);
  options.in_flight = 2;
  calls = cancelled = 0;
  std::thread stop([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    options.cancel->store(true);
  });
  twinmaf::score_many(endless, options);
  stop.join();
  EXPECT_EQ(calls, endless.size());
  EXPECT_EQ(cancelled, endless.size());
}

}  // namespace
