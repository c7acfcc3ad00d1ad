// Pooling of a per-frame series, in libvmaf's arithmetic (libvmaf.c,
// vmaf_feature_score_pooled): indices lo..hi in increasing order, skipping
// i % subsample != 0 when subsample > 1; sums in double; min/max seeded by the
// first index with strict < / >; harmonic mean = n / sum(1/(s+1)) - 1.
#pragma once

#include <optional>
#include <string_view>

#include "core/collector.h"

namespace twinmaf {

enum class PoolMethod { kMin = 1, kMax = 2, kMean = 3, kHarmonicMean = 4 };

inline constexpr PoolMethod kPoolMethods[] = {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean,
                                             PoolMethod::kHarmonicMean};
std::string_view pool_method_name(PoolMethod m);

// nullopt when any index in range lacks a value (libvmaf then omits the method).
std::optional<double> pool(const Collector::Column& column, PoolMethod method, unsigned lo,
                           unsigned hi, unsigned subsample);

}  // namespace twinmaf
