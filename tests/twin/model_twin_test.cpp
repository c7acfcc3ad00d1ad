// Model scores on the GPU: whole jobs (the public API's Scorer) with every
// built-in v0.6.x and v1.0.16 model, --backend cpu against --backend cuda, the result
// files written with --precision max compared byte for byte (apart from fps
// and the "backends" record).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "tests/twin/twin_harness.h"
#include "twinmaf/twinmaf.h"

namespace twinmaf::test {
namespace {

std::string write_file(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return p.string();
}

// The job's result file; `loop`, when given, receives the profile's loop
// plan line (the run is profiled).
std::string result_file(ScorerConfig cfg, const InputFile& ref, const InputFile& dis, Backend backend,
                        const std::string& out, std::string* loop = nullptr) {
  cfg.backend = backend;
  cfg.profile = loop != nullptr;
  auto scorer = Scorer::create(cfg);
  EXPECT_TRUE(scorer.ok()) << scorer.status().message();
  if (!scorer.ok()) return {};
  Status st = (*scorer)->score(ref, {dis});
  EXPECT_TRUE(st.ok()) << st.message();
  st = (*scorer)->write(out, OutputFormat::kJson, 0, Precision{Precision::Mode::kMax, 17});
  EXPECT_TRUE(st.ok()) << st.message();
  for (const auto& [feature, b] : (*scorer)->info().backends) {
    const bool on_cpu = backend == Backend::kCpu ||
                        std::any_of(cfg.feature_backends.begin(), cfg.feature_backends.end(),
                                    [&](const auto& fb) { return fb.first == feature && fb.second == Backend::kCpu; });
    EXPECT_EQ(b, on_cpu ? "cpu" : "cuda") << feature;
  }
  if (loop)
    for (const std::string& line : (*scorer)->info().profile)
      if (line.starts_with("  loop ")) *loop = line;
  std::stringstream ss;
  ss << std::ifstream(out).rdbuf();
  // fps differs run to run; "backends" is written only by the GPU run.
  return std::regex_replace(std::regex_replace(ss.str(), std::regex("\"fps\": [^,]*,"), ""),
                            std::regex("  \"backends\": \\{[^}]*\\},\n"), "");
}

// The GPU runs of one job under each way the frame loop can run a device
// (engine/loop_plan.h), each equal to the CPU's file. Models that settle: every
// feature on a twin at --threads 0 (settling on a worker arena of a quarter of
// the cores) and at --threads 1 (an arena of one). Models that do not (both
// of those would be one plan): every feature on a twin, and motion on the CPU
// on the calling thread, at --threads 0. Then motion on the CPU at --threads 4
// (the pipeline driver). The three runs differ in their plan or backends.
void expect_every_loop_equals_cpu(ScorerConfig cfg, const InputFile& ref, const InputFile& dis,
                                  const std::string& cpu, const std::filesystem::path& dir, bool settles) {
  struct Run {
    unsigned threads;
    bool motion_on_cpu;
  };
  const std::vector<Run> runs = settles ? std::vector<Run>{{0, false}, {1, false}, {4, true}}
                                        : std::vector<Run>{{0, false}, {0, true}, {4, true}};
  std::vector<std::string> loops;
  for (const Run& run : runs) {
    cfg.threads = run.threads;
    cfg.feature_backends.clear();
    if (run.motion_on_cpu) cfg.feature_backends = {{"motion", Backend::kCpu}};
    std::string loop;
    const std::string gpu = result_file(cfg, ref, dis, Backend::kCuda, (dir / "gpu.json").string(), &loop);
    EXPECT_EQ(cpu, gpu) << "threads " << run.threads << loop;
    EXPECT_FALSE(loop.empty()) << "threads " << run.threads;
    loops.push_back(loop + (run.motion_on_cpu ? ", motion on the CPU" : ""));
  }
  EXPECT_NE(loops[0], loops[2]);
  EXPECT_NE(loops[1], loops[2]);
  EXPECT_NE(loops[2].find("pipeline"), std::string::npos) << loops[2];
  if (!settles || std::thread::hardware_concurrency() >= 8) EXPECT_NE(loops[0], loops[1]);
}

TEST(ModelTwin, EveryBuiltInV06ModelEqualsTheCpu) {
  REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "twinmaf_model_twin";
  std::filesystem::create_directories(dir);
  for (const VideoFormat& f : {VideoFormat{576, 324, PixFmt::k420, 8}, VideoFormat{357, 353, PixFmt::k444, 10},
                               VideoFormat{1920, 1080, PixFmt::k420, 12}}) {
    SCOPED_TRACE(describe(f, {"models"}, 6, 1));
    const Clip c = ramp_clip(f, 6, 41);
    const RawParams raw{f.w, f.h, f.fmt, f.bpc};
    const InputFile ref{write_file(dir / "ref.yuv", c.ref), raw};
    const InputFile dis{write_file(dir / "dis.yuv", c.dis), raw};
    ScorerConfig cfg;
    cfg.models = {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg",
                  "version=vmaf_4k_v0.6.1:name=vmaf_4k", "version=vmaf_4k_v0.6.1neg:name=vmaf_4k_neg",
                  "version=vmaf_b_v0.6.3:name=vmaf_b"};
    const std::string cpu = result_file(cfg, ref, dis, Backend::kCpu, (dir / "cpu.json").string());
    expect_every_loop_equals_cpu(cfg, ref, dis, cpu, dir, false);
    EXPECT_NE(cpu.find("\"vmaf_b_ci_p95_hi\""), std::string::npos);
    values_compared() += static_cast<size_t>(std::count(cpu.begin(), cpu.end(), '\n'));
  }
  std::filesystem::remove_all(dir);
}

// The eight v1.0.16 models (cambi, speed_chroma, adm3, motion3; the _hfr
// ones with motion's five-frame window) wholly on the GPU, in one job.
TEST(ModelTwin, EveryV1ModelEqualsTheCpu) {
  REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "twinmaf_model_twin_v1";
  std::filesystem::create_directories(dir);
  for (const VideoFormat& f : {VideoFormat{576, 324, PixFmt::k420, 8}, VideoFormat{1920, 1080, PixFmt::k420, 10}}) {
    SCOPED_TRACE(describe(f, {"v1.0.16 models"}, 8, 1));
    const Clip c = ramp_clip(f, 8, 43);
    const RawParams raw{f.w, f.h, f.fmt, f.bpc};
    const InputFile ref{write_file(dir / "ref.yuv", c.ref), raw};
    const InputFile dis{write_file(dir / "dis.yuv", c.dis), raw};
    ScorerConfig cfg;
    for (const char* v : {"3d0h", "5d0h", "3d0h_2160", "1d5h_2160"})
      for (const char* hfr : {"", "hfr_"})
        cfg.models.push_back(fmt::format("version=vmaf_v1.0.16_{}{}:name=v1_{}{}", hfr, v, hfr, v));
    const std::string cpu = result_file(cfg, ref, dis, Backend::kCpu, (dir / "cpu.json").string());
    expect_every_loop_equals_cpu(cfg, ref, dis, cpu, dir, true);
    EXPECT_NE(cpu.find("\"v1_hfr_1d5h_2160\""), std::string::npos);
    // (cambi's printed name carries its non-default options.)
    EXPECT_NE(cpu.find("\"cambi"), std::string::npos);
    EXPECT_NE(cpu.find("\"speed_chroma_uv"), std::string::npos);
    values_compared() += static_cast<size_t>(std::count(cpu.begin(), cpu.end(), '\n'));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace twinmaf::test
