#include "tests/twin/twin_harness.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <tuple>

#include "api/feature_text.h"
#include "io/planar.h"
#include "tests/support/memory_source.h"
#include "tests/support/noise_clip.h"
#if TWINMAF_HAVE_CUDA
#include "gpu/device.h"
#endif

namespace twinmaf::test {

size_t& values_compared() {
  static size_t n = 0;
  return n;
}

size_t& terms_compared() {
  static size_t n = 0;
  return n;
}

bool have_gpu() {
#if TWINMAF_HAVE_CUDA
  return !gpu::list_devices().empty();
#else
  return false;
#endif
}

bool gpu_required() {
  const char* v = std::getenv("TWINMAF_REQUIRE_GPU");
  return v && std::string_view(v) == "1";
}

Clip noise_clip(const VideoFormat& f, int frames, uint64_t seed) {
  NoiseClipSpec spec{f.w, f.h, f.fmt == PixFmt::k400 ? PixFmt::k444 : f.fmt, f.bpc, frames, seed};
  Clip c{f, {}, {}};
  make_noise_clip(spec, &c.ref, &c.dis);
  if (f.fmt == PixFmt::k400) {  // keep the luma planes only
    const size_t luma = packed_plane_bytes(f, 0), frame444 = luma * 3;
    std::vector<uint8_t> r, d;
    for (int i = 0; i < frames; ++i) {
      r.insert(r.end(), c.ref.begin() + i * frame444, c.ref.begin() + i * frame444 + luma);
      d.insert(d.end(), c.dis.begin() + i * frame444, c.dis.begin() + i * frame444 + luma);
    }
    c.ref.swap(r);
    c.dis.swap(d);
  }
  return c;
}

Clip ramp_clip(const VideoFormat& f, int frames, uint64_t seed) {
  Clip c{f, {}, {}};
  SplitMix64 rng(seed);
  const uint32_t max = (1u << f.bpc) - 1;
  for (int t = 0; t < frames; ++t)
    for (int p = 0; p < f.planes(); ++p)
      for (int y = 0; y < f.stored_h(p); ++y)
        for (int x = 0; x < f.stored_w(p); ++x) {
          const uint32_t r = static_cast<uint32_t>(((x + 3 * t) * 7 + y * 5 + p * 31) << (f.bpc - 8)) & max;
          const int64_t d = std::clamp<int64_t>(int64_t(r) + int64_t(rng.next() % 9) - 4, 0, max);
          for (auto [v, s] : {std::pair{&c.ref, int64_t(r)}, std::pair{&c.dis, d}}) {
            v->push_back(static_cast<uint8_t>(s & 0xff));
            if (f.bpc > 8) v->push_back(static_cast<uint8_t>(s >> 8));
          }
        }
  return c;
}

Outcome score(const Clip& clip, const std::vector<std::string>& features, Backend backend, unsigned subsample) {
  Outcome o;
  SessionConfig cfg;
  cfg.backend = backend;
  cfg.subsample = subsample;
  cfg.on_terms = [&o](unsigned index, unsigned lane, size_t feature, const FrameTerms& t) {
    o.terms.push_back({index, lane, feature, t.clone()});
  };
  Session s(cfg);
  for (const std::string& text : features) {
    auto req = parse_feature_text(text);
    if (!req.ok()) {
      o.status = req.status();
      return o;
    }
    o.status = s.use_feature(req->name, req->options);
    if (!o.status.ok()) return o;
  }
  MemorySource ref(clip.f, clip.ref, "ref"), dis(clip.f, clip.dis, "dis");
  o.status = s.run(ref, dis, {}, nullptr);
  for (const auto& r : s.features()) o.backends.push_back(r.backend);
  o.collector = std::move(s.collector());
  return o;
}

std::string describe(const VideoFormat& f, const std::vector<std::string>& features, int frames, unsigned subsample) {
  std::string s = fmt::format("{}x{} {} {}-bit, {} frames, subsample {}:", f.w, f.h, pix_fmt_name(f.fmt), f.bpc,
                              frames, subsample);
  for (const auto& x : features) s += " --feature " + x;
  return s;
}

void expect_twin(const Clip& clip, const std::vector<std::string>& features, int frames, unsigned subsample,
                 bool nontrivial_expected) {
  const std::string what = describe(clip.f, features, frames, subsample);
  SCOPED_TRACE(what);
  const Outcome cpu = score(clip, features, Backend::kCpu, subsample);
  const Outcome gpu = score(clip, features, Backend::kCuda, subsample);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.message();
  ASSERT_TRUE(gpu.status.ok()) << gpu.status.message();
  for (const auto& b : gpu.backends) ASSERT_EQ(b, "cuda") << "a feature did not run on its twin";
  // Every feature's terms of every frame, before finish: the seam itself.
  ASSERT_EQ(cpu.terms.size(), gpu.terms.size());
  for (size_t k = 0; k < cpu.terms.size(); ++k) {
    const TermsRecord& x = cpu.terms[k];
    const TermsRecord& y = gpu.terms[k];
    ASSERT_EQ(std::tie(x.index, x.lane, x.feature), std::tie(y.index, y.lane, y.feature));
    ASSERT_TRUE(x.terms->same_as(*y.terms))
        << "terms differ: frame " << x.index << " lane " << x.lane << " feature " << features[x.feature];
    ++terms_compared();
  }
  const auto& a = cpu.collector.columns();
  const auto& b = gpu.collector.columns();
  ASSERT_EQ(a.size(), b.size());
  bool nontrivial = false;
  for (size_t c = 0; c < a.size(); ++c) {
    ASSERT_EQ(a[c].name, b[c].name);
    ASSERT_EQ(a[c].written, b[c].written) << a[c].name;
    for (size_t i = 0; i < a[c].values.size(); ++i) {
      if (!a[c].written[i]) continue;
      const double x = a[c].values[i], y = b[c].values[i];
      ASSERT_EQ(0, std::memcmp(&x, &y, sizeof x))
          << a[c].name << " frame " << i << ": cpu " << fmt::format("{:.17g}", x) << " cuda "
          << fmt::format("{:.17g}", y);
      nontrivial = nontrivial || (x != 0 && std::isfinite(x));
      ++values_compared();
    }
  }
  ASSERT_EQ(cpu.collector.aggregates().size(), gpu.collector.aggregates().size());
  for (size_t i = 0; i < cpu.collector.aggregates().size(); ++i) {
    const double x = cpu.collector.aggregates()[i].second, y = gpu.collector.aggregates()[i].second;
    ASSERT_EQ(0, std::memcmp(&x, &y, sizeof x)) << cpu.collector.aggregates()[i].first;
  }
  if (nontrivial_expected) EXPECT_TRUE(nontrivial) << "every compared value is zero or non-finite";
}

std::vector<Clip> real_clips() {
  std::vector<Clip> out;
  const char* list = std::getenv("TWINMAF_TWIN_CLIPS");
  if (!list) return out;
  std::ifstream in(list);
  if (!in) {
    ADD_FAILURE() << "cannot read " << list;
    return out;
  }
  const std::string dir = std::string(list).substr(0, std::string(list).rfind('/') + 1);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string r, d, layout;
    int w, h, bpc, frames;
    if (!(ss >> r >> d >> w >> h >> layout >> bpc >> frames)) continue;
    const std::optional<PixFmt> fmt = parse_pix_fmt(layout);
    if (!fmt) {
      ADD_FAILURE() << list << ": unknown layout " << layout;
      continue;
    }
    Clip c{{w, h, *fmt, bpc}, {}, {}};
    for (auto [path, v] : {std::pair{dir + r, &c.ref}, std::pair{dir + d, &c.dis}}) {
      std::ifstream file(path, std::ios::binary);
      if (!file) ADD_FAILURE() << "cannot read " << path;
      v->assign(std::istreambuf_iterator<char>(file), {});
      v->resize(std::min<size_t>(v->size(), packed_frame_bytes(c.f) * size_t(frames)));
    }
    out.push_back(std::move(c));
  }
  if (out.empty()) ADD_FAILURE() << list << " lists no clip";
  return out;
}

int clip_frames(const Clip& c) { return static_cast<int>(c.ref.size() / packed_frame_bytes(c.f)); }

}  // namespace twinmaf::test
