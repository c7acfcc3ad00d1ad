// twinmaf_noiseclip NAME OUTDIR: writes OUTDIR/NAME_ref.yuv and NAME_dis.yuv.
// twinmaf_noiseclip --rcpss: prints this processor's RCPSS fingerprint
// (tests/support/rcpss.h), which selects the vendor-dependent recordings.
#include <cstdio>
#include <string>

#include "tests/support/noise_clip.h"
#include "tests/support/rcpss.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--rcpss") {
    std::printf("%s\n", twinmaf::test::rcpss_fingerprint().c_str());
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: twinmaf_noiseclip NAME OUTDIR | --rcpss\n");
    return 2;
  }
  twinmaf::test::NoiseClipSpec spec;
  if (!twinmaf::test::parse_noise_clip_name(argv[1], &spec)) {
    std::fprintf(stderr, "twinmaf_noiseclip: bad clip name '%s'\n", argv[1]);
    return 2;
  }
  std::vector<uint8_t> ref, dis;
  twinmaf::test::make_noise_clip(spec, &ref, &dis);
  for (const auto& [suffix, data] : {std::pair{"_ref.yuv", &ref}, std::pair{"_dis.yuv", &dis}}) {
    const std::string path = std::string(argv[2]) + "/" + argv[1] + suffix;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(data->data(), 1, data->size(), f) != data->size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "twinmaf_noiseclip: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
