// twinmaf_noiseclip NAME OUTDIR: writes OUTDIR/NAME_ref.yuv and NAME_dis.yuv.
#include <cstdio>
#include <string>

#include "tests/support/noise_clip.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: twinmaf_noiseclip NAME OUTDIR\n");
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
