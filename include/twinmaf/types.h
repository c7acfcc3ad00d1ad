// Plain types of twinmaf's public C++ API (twinmaf/twinmaf.h), shared with the
// library's internals.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "twinmaf/picture.h"
#include "twinmaf/status.h"

namespace twinmaf {

// Largest picture side (validate_format) and most worker threads a run takes.
inline constexpr int kMaxPictureSize = 32768;
inline constexpr unsigned kMaxThreads = 1024;

// Where a feature runs. kAuto: on its CUDA twin when a device is present and
// the twin does the request exactly, else on the CPU. kCuda: on its twin, or
// an error naming the feature and the reason.
enum class Backend { kCpu, kCuda, kAuto };

// "cpu", "cuda" or "auto".
Result<Backend> parse_backend(std::string_view text);

// The --backend list: a default, then per-feature choices,
// "auto,psnr_hvs=cpu,vif=cuda" (each part optional: "vif=cpu" keeps auto;
// the default or a feature twice is an error).
struct BackendChoice {
  Backend backend = Backend::kAuto;
  std::vector<std::pair<std::string, Backend>> per_feature;  // extractor name -> backend
};
Result<BackendChoice> parse_backend_choice(std::string_view text);

// Where compressed inputs (FFmpeg) are decoded. kAuto: on NVDEC for the
// inputs this GPU's libavcodec hwaccel takes when every feature runs on the
// GPU, sharing the inputs with CPU decoders where several decode at once;
// elsewhere on the CPU. kNvdec: every compressed input on NVDEC, or an error
// naming the input and the reason. kCpu: on CPU threads.
enum class Decode { kAuto, kCpu, kNvdec };

// "auto", "cpu" or "nvdec" for every input, or a list of them, one per input
// (the reference first, then each distorted input): "cpu,nvdec".
Result<std::vector<Decode>> parse_decode(std::string_view text);

// How a compressed input was decoded (RunInfo::decoding).
struct InputDecoding {
  std::string input;    // its path
  std::string decoder;  // "nvdec", "cpu, 8 threads"
  std::string why;      // why that decoder (ScorerConfig::decode)
  double seconds = 0;   // decoding it (its reader thread's time in the decoder)
  unsigned frames = 0;  // frames decoded, skipped ones included
};

// Which frames to score (libvmaf's --frame_cnt, --frame_skip_ref,
// --frame_skip_dist).
struct RunLimits {
  unsigned frame_cnt = 0;  // 0: all
  unsigned skip_ref = 0;
  unsigned skip_dis = 0;
};

// How raw (headerless) YUV inputs are laid out: -w -h -p -b.
struct RawParams {
  int w = 0;
  int h = 0;
  PixFmt fmt = PixFmt::k420;
  int bpc = 8;
};

// libvmaf's result files.
enum class OutputFormat { kXml, kJson, kCsv, kSub };

// Number text in result files: libvmaf's default ("%.6f", or "%.16f" for tiny
// fractions), "%.Nf", or "%.17g" (round-trips every double).
struct Precision {
  enum class Mode { kDefault, kFixed, kMax };
  Mode mode = Mode::kDefault;
  int digits = 6;  // kFixed
};

// "N" (0..17) or "max".
Result<Precision> parse_precision(std::string_view text);

}  // namespace twinmaf
