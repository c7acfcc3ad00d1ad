#include "tests/support/noise_clip.h"

#include <algorithm>
#include <regex>

namespace twinmaf::test {

bool parse_noise_clip_name(const std::string& name, NoiseClipSpec* spec) {
  static const std::regex re(R"(noise_(\d+)x(\d+)_(420|422|444)_(\d+)b_(\d+)f_s(\d+))");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return false;
  spec->w = std::stoi(m[1]);
  spec->h = std::stoi(m[2]);
  spec->fmt = *parse_pix_fmt(m[3].str());  // the pattern admits only 420, 422, 444
  spec->bpc = std::stoi(m[4]);
  spec->frames = std::stoi(m[5]);
  spec->seed = std::stoull(m[6]);
  return true;
}

void make_noise_clip(const NoiseClipSpec& spec, std::vector<uint8_t>* ref, std::vector<uint8_t>* dis) {
  const VideoFormat f{spec.w, spec.h, spec.fmt, spec.bpc};
  const int64_t top = (int64_t{1} << spec.bpc) - 1;
  const int64_t a = std::max<int64_t>(1, top >> 3);
  SplitMix64 rng(spec.seed);
  ref->clear();
  dis->clear();
  const auto put = [&](std::vector<uint8_t>* v, int64_t s) {
    v->push_back(static_cast<uint8_t>(s & 0xff));
    if (spec.bpc > 8) v->push_back(static_cast<uint8_t>(s >> 8));
  };
  for (int fr = 0; fr < spec.frames; ++fr) {
    for (int p = 0; p < 3; ++p) {
      const int64_t n = int64_t(f.stored_w(p)) * f.stored_h(p);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = static_cast<int64_t>(rng.next() >> (64 - spec.bpc));
        const int64_t delta = static_cast<int64_t>((rng.next() >> 32) % uint64_t(2 * a + 1)) - a;
        put(ref, r);
        put(dis, std::clamp<int64_t>(r + delta, 0, top));
      }
    }
  }
}

}  // namespace twinmaf::test
