#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace twinmaf {

Direction metric_direction(std::string_view n) {
  const auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
  if (has("motion") || has("moment")) return Direction::kNone;
  if (has("cambi") || n.starts_with("mse") || has("speed_") || n.ends_with("_stddev"))
    return Direction::kLowerIsBetter;
  return Direction::kHigherIsBetter;
}

std::optional<SeriesStats> series_stats(const Collector::Column& column, std::string_view output_name,
                                        unsigned frames, unsigned subsample, unsigned worst) {
  std::vector<std::pair<unsigned, double>> v;
  unsigned non_finite = 0;
  for (unsigned i = 0; i < frames && i < column.values.size(); ++i) {
    if (subsample > 1 && i % subsample) continue;
    if (!column.written[i]) continue;
    if (std::isfinite(column.values[i])) v.emplace_back(i, column.values[i]);
    else ++non_finite;
  }
  if (v.empty()) return std::nullopt;
  SeriesStats s;
  s.count = static_cast<unsigned>(v.size());
  s.non_finite = non_finite;
  double sum = 0;
  for (const auto& [i, x] : v) sum += x;
  s.mean = sum / double(v.size());
  double sq = 0;
  for (const auto& [i, x] : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(sq / double(v.size()));
  std::vector<double> sorted;
  for (const auto& [i, x] : v) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  const auto pct = [&](double p) {
    const double pos = p / 100.0 * double(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
  };
  s.p1 = pct(1);
  s.p5 = pct(5);
  s.p50 = pct(50);
  s.p95 = pct(95);
  s.p99 = pct(99);
  const Direction dir = metric_direction(output_name);
  if (dir != Direction::kNone && worst > 0) {
    const bool low_is_bad = dir == Direction::kHigherIsBetter;
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return low_is_bad ? a.second < b.second : a.second > b.second;
    });
    v.resize(std::min<size_t>(v.size(), worst));
    s.worst = std::move(v);
  }
  return s;
}

}  // namespace twinmaf
