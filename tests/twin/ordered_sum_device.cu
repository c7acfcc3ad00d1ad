#include "tests/twin/ordered_sum_device.h"

#include <cuda_runtime_api.h>

#include "gpu/ordered_sum.cuh"

namespace twinmaf::test {

namespace {

template <typename F, int kLeaf>
std::string run(const std::vector<std::vector<F>>& seqs, std::vector<typename OrderedSumFormat<F>::Uint>& bits) {
  using Uint = typename OrderedSumFormat<F>::Uint;
  constexpr int kTrees = kOrderedSumTestTrees;
  OrderedSumForest<F, kLeaf, kTrees> f;
  int leaves[kTrees];
  for (int i = 0; i < kTrees; ++i) leaves[i] = static_cast<int>((seqs[size_t(i)].size() + kLeaf - 1) / kLeaf);
  const int entries = ordered_sum_forest_layout(f, leaves);
  // Every tree's leaves in order, each tree's last leaf padded with +0.
  std::vector<F> terms(size_t(f.leaves) * kLeaf, F(0));
  size_t at = 0;
  for (int i = 0; i < kTrees; ++i) {
    std::copy(seqs[size_t(i)].begin(), seqs[size_t(i)].end(), terms.begin() + std::ptrdiff_t(at));
    at += size_t(leaves[i]) * kLeaf;
  }
  bits.assign(kTrees, 0);
  void *d_terms = nullptr, *d_entries = nullptr, *d_ret = nullptr;
  cudaError_t e = cudaMalloc(&d_terms, terms.size() * sizeof(F) + 1);
  if (e == cudaSuccess) e = cudaMalloc(&d_entries, size_t(entries) * sizeof(OrderedSumEntry<F>) + 1);
  if (e == cudaSuccess) e = cudaMalloc(&d_ret, kTrees * sizeof(Uint));
  if (e == cudaSuccess) e = cudaMemcpy(d_terms, terms.data(), terms.size() * sizeof(F), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemset(d_ret, 0, kTrees * sizeof(Uint));
  if (e == cudaSuccess) {
    f.terms = static_cast<F*>(d_terms);
    f.entries = static_cast<OrderedSumEntry<F>*>(d_entries);
    e = cuda::ordered_sum_enqueue_terms(f, static_cast<Uint*>(d_ret), nullptr);
  }
  if (e == cudaSuccess) e = cudaMemcpy(bits.data(), d_ret, kTrees * sizeof(Uint), cudaMemcpyDeviceToHost);
  for (void* p : {d_terms, d_entries, d_ret}) cudaFree(p);
  return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
}

}  // namespace

std::string device_ordered_sums(int leaf, const std::vector<std::vector<float>>& seqs, std::vector<uint32_t>& bits) {
  switch (leaf) {
    case 1: return run<float, 1>(seqs, bits);
    case 7: return run<float, 7>(seqs, bits);
    case 64: return run<float, 64>(seqs, bits);
    case 100: return run<float, 100>(seqs, bits);
  }
  return "no float instantiation for leaf " + std::to_string(leaf);
}

std::string device_ordered_sums(int leaf, const std::vector<std::vector<double>>& seqs, std::vector<uint64_t>& bits) {
  switch (leaf) {
    case 7: return run<double, 7>(seqs, bits);
    case 64: return run<double, 64>(seqs, bits);
  }
  return "no double instantiation for leaf " + std::to_string(leaf);
}

}  // namespace twinmaf::test
