#include "core/pooling.h"

namespace twinmaf {

std::string_view pool_method_name(PoolMethod m) {
  switch (m) {
    case PoolMethod::kMin: return "min";
    case PoolMethod::kMax: return "max";
    case PoolMethod::kMean: return "mean";
    case PoolMethod::kHarmonicMean: return "harmonic_mean";
  }
  return "?";
}

std::optional<double> pool(const Collector::Column& column, PoolMethod method, unsigned lo,
                           unsigned hi, unsigned subsample) {
  if (lo > hi) return std::nullopt;
  unsigned n = 0;
  double min = 0., max = 0., sum = 0., i_sum = 0.;
  for (unsigned i = lo; i <= hi; ++i) {
    if (subsample > 1 && i % subsample) continue;
    if (i >= column.values.size() || !column.written[i]) return std::nullopt;
    const double s = column.values[i];
    ++n;
    sum += s;
    i_sum += 1. / (s + 1.);
    if (i == lo || s < min) min = s;
    if (i == lo || s > max) max = s;
  }
  switch (method) {
    case PoolMethod::kMean: return sum / n;
    case PoolMethod::kMin: return min;
    case PoolMethod::kMax: return max;
    case PoolMethod::kHarmonicMean: return n / i_sum - 1.0;
  }
  return std::nullopt;
}

}  // namespace twinmaf
