// cambi's block pooling (src/features/cambi/cambi_pool.cuh) on one array, for
// the twin tests (cambi_pool_device.cu).
#pragma once

#include <string>
#include <vector>

namespace twinmaf::test {

// Runs cambi_topk_sum_block on a copy of `a` (values as cambi's c-values:
// 0 or floats in [0.5, 2^14)), k in [1, a.size()], partitions below
// `serial_below` samples on one thread; `a` receives the reordered array and
// `sum` the pooled value. Empty string, or the CUDA error.
std::string device_cambi_topk_sum(std::vector<float>& a, int k, int serial_below, double& sum);

}  // namespace twinmaf::test
