// Summary statistics of a per-frame series (--stats, the HTML report): beyond
// libvmaf's pooling (core/pooling.h), which stays the only source of the
// result files' pooled values.
//
// Over the frames pooling covers (0..frames-1, every subsample-th; values
// that are not finite are left out and counted): mean and population standard deviation
// summed in double in frame order; percentile p at position p/100 * (n - 1)
// of the ascending values, interpolated linearly between neighbours (libvmaf's
// bootstrap percentile rule); worst frames in the direction the metric gets
// worse (metric_direction), ties by frame index.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/collector.h"

namespace twinmaf {

// Which way a metric improves, by its output name: lower for cambi, mse_*,
// speed_* and bootstrap stddev values; none for motion and moments (they
// describe the content, not its quality); higher for the rest (VMAF, PSNR,
// SSIM, VIF, ADM, CIEDE2000 as libvmaf reports it, psnr_hvs).
enum class Direction { kHigherIsBetter, kLowerIsBetter, kNone };
Direction metric_direction(std::string_view output_name);

struct SeriesStats {
  unsigned count = 0;
  unsigned non_finite = 0;  // covered frames left out
  double mean = 0, stddev = 0;
  double p1 = 0, p5 = 0, p50 = 0, p95 = 0, p99 = 0;
  std::vector<std::pair<unsigned, double>> worst;  // (frame, value), worst first
};

// None when no covered frame has a finite value.
std::optional<SeriesStats> series_stats(const Collector::Column& column, std::string_view output_name,
                                        unsigned frames, unsigned subsample, unsigned worst);

}  // namespace twinmaf
