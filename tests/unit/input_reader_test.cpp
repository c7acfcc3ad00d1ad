#include "engine/input_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/planar.h"
#include "tests/support/noise_clip.h"

namespace twinmaf {
namespace {

struct Files {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "twinmaf_input_reader_test";
  Files() { std::filesystem::create_directories(dir); }
  ~Files() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const auto p = (dir / name).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return p;
  }
};

struct Outcome {
  std::vector<std::vector<uint8_t>> frames;  // ref luma then dis luma per frame
  std::vector<std::string> warnings;
  std::string error;
};

// A source read in order only, as a decoder is.
class InOrder final : public VideoSource {
 public:
  explicit InOrder(std::unique_ptr<VideoSource> inner) : VideoSource(inner->path()), inner_(std::move(inner)) {}
  const VideoFormat& format() const override { return inner_->format(); }
  Result<bool> read(Picture& pic) override { return inner_->read(pic); }

 private:
  std::unique_ptr<VideoSource> inner_;
};

// `ahead` > 0: both inputs read in order only, in stream mode.
Outcome read_all(const std::string& ref, const std::string& dis, const RawParams& p, unsigned threads,
                 unsigned frame_cnt, unsigned ahead = 0) {
  Outcome o;
  auto r = open_source(ref, p);
  auto d = open_source(dis, p);
  EXPECT_TRUE(r.ok() && d.ok());
  if (ahead) {
    *r = std::make_unique<InOrder>(std::move(*r));
    *d = std::make_unique<InOrder>(std::move(*d));
  }
  PicturePool pool((*r)->format(), host_allocator());
  InputReader reader(**r, {d->get()}, frame_cnt, pool, &o.warnings, threads, 0, ahead);
  for (;;) {
    FrameSet set;
    auto got = reader.next(&set);
    const unsigned i = set.index;
    const Picture* a = set.ref.get();
    const Picture* b = set.dis.empty() ? nullptr : set.dis[0].get();
    if (!got.ok()) {
      o.error = got.status().message();
      break;
    }
    if (!*got) break;
    EXPECT_EQ(2 * size_t(i), o.frames.size());
    for (const Picture* pic : {a, b}) {
      const PlaneView v = pic->plane(0);
      std::vector<uint8_t> bytes;
      for (int y = 0; y < v.h; ++y) bytes.insert(bytes.end(), v.row<uint8_t>(y), v.row<uint8_t>(y) + v.w);
      o.frames.push_back(bytes);
    }
  }
  return o;
}

void expect_same(const Outcome& want, const Outcome& got) {
  EXPECT_EQ(want.frames, got.frames);
  EXPECT_EQ(want.warnings, got.warnings);
  EXPECT_EQ(want.error, got.error);
}

TEST(InputReader, ParallelReadsEqualSequential) {
  Files f;
  test::NoiseClipSpec spec{37, 21, PixFmt::k420, 8, 23, 5};
  std::vector<uint8_t> ref, dis;
  test::make_noise_clip(spec, &ref, &dis);
  const size_t frame = packed_frame_bytes({37, 21, PixFmt::k420, 8});
  const RawParams p{37, 21, PixFmt::k420, 8};
  const std::string r = f.write("r.yuv", ref);
  const std::string d = f.write("d.yuv", dis);
  std::vector<uint8_t> shorter(dis.begin(), dis.begin() + std::ptrdiff_t(frame * 17));
  const std::string s = f.write("s.yuv", shorter);
  std::vector<uint8_t> cut(dis.begin(), dis.begin() + std::ptrdiff_t(frame * 9 + 5));
  const std::string c = f.write("c.yuv", cut);
  for (unsigned frame_cnt : {0u, 1u, 7u, 40u})
    for (const std::string& other : {d, s, c}) {
      const Outcome a = read_all(r, other, p, 1, frame_cnt);
      for (unsigned threads : {2u, 5u, 12u}) {
        SCOPED_TRACE(other + " threads " + std::to_string(threads) + " frame_cnt " + std::to_string(frame_cnt));
        expect_same(a, read_all(r, other, p, threads, frame_cnt));
      }
    }
  EXPECT_EQ(read_all(r, d, p, 4, 0).frames.size(), 2u * 23);
  EXPECT_EQ(read_all(r, d, p, 1, 0, 3).frames.size(), 2u * 23);
  EXPECT_EQ(read_all(r, s, p, 4, 0).warnings.size(), 1u);
  EXPECT_NE(read_all(r, c, p, 4, 0).error.find("frame 9 is truncated"), std::string::npos);
}

TEST(InputReader, StreamedReadsEqualSequential) {
  Files f;
  test::NoiseClipSpec spec{21, 13, PixFmt::k420, 8, 19, 9};
  std::vector<uint8_t> ref, dis;
  test::make_noise_clip(spec, &ref, &dis);
  const size_t frame = packed_frame_bytes({21, 13, PixFmt::k420, 8});
  const RawParams p{21, 13, PixFmt::k420, 8};
  const std::string r = f.write("r.yuv", ref);
  const std::string d = f.write("d.yuv", dis);
  const std::string s = f.write("s.yuv", {dis.begin(), dis.begin() + std::ptrdiff_t(frame * 11)});
  const std::string c = f.write("c.yuv", {dis.begin(), dis.begin() + std::ptrdiff_t(frame * 6 + 3)});
  const std::string e = f.write("e.yuv", {dis.begin(), dis.begin() + std::ptrdiff_t(frame)});
  for (unsigned frame_cnt : {0u, 1u, 5u, 30u})
    for (const auto& [a, b] : {std::pair{r, d}, {r, s}, {s, r}, {r, c}, {c, s}, {e, r}, {r, e}}) {
      const Outcome want = read_all(a, b, p, 1, frame_cnt);
      for (unsigned ahead : {1u, 2u, 3u}) {
        SCOPED_TRACE(a + " " + b + " ahead " + std::to_string(ahead) + " frame_cnt " + std::to_string(frame_cnt));
        expect_same(want, read_all(a, b, p, 1, frame_cnt, ahead));
      }
    }
  EXPECT_EQ(read_all(r, s, p, 1, 0, 2).warnings.size(), 1u);
  EXPECT_NE(read_all(c, s, p, 1, 0, 2).error.find("frame 6 is truncated"), std::string::npos);
}

}  // namespace
}  // namespace twinmaf
