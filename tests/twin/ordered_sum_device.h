// The generic device reduction of gpu/ordered_sum.cuh, instantiated for the
// twin tests (ordered_sum_device.cu): each sequence's exact ordered sum
// r = +0; r += t, as the bits of r, for leaf sizes 1, 7, 64, 100 (float) and
// 7, 64 (double), the sequences as three trees of one forest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace twinmaf::test {

inline constexpr int kOrderedSumTestTrees = 3;

// Empty string, or the CUDA error. seqs.size() == kOrderedSumTestTrees.
std::string device_ordered_sums(int leaf, const std::vector<std::vector<float>>& seqs, std::vector<uint32_t>& bits);
std::string device_ordered_sums(int leaf, const std::vector<std::vector<double>>& seqs, std::vector<uint64_t>& bits);

}  // namespace twinmaf::test
