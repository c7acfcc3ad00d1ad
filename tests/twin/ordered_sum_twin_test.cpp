// The generic device reduction (gpu/ordered_sum.cuh) against the plain
// ordered loop, bit for bit: float and double, several leaf sizes, three
// trees at once (one empty), on every adversarial sequence kind.
#include <cstring>

#include "base/ordered_sum.h"
#include "tests/support/float_sequences.h"
#include "tests/twin/twin_harness.h"
#if TWINMAF_HAVE_CUDA
#include "tests/twin/ordered_sum_device.h"
#endif

namespace twinmaf::test {
namespace {

#if TWINMAF_HAVE_CUDA
template <typename F, typename U>
void expect_device_sums(const std::vector<int>& leaves) {
  for (int leaf : leaves)
    for (int kind = 0; kind < kFloatSequenceKinds; ++kind)
      for (const size_t n : {size_t(1), size_t(333), size_t(20000)}) {
        SCOPED_TRACE(testing::Message() << sizeof(F) * 8 << "-bit, leaf " << leaf << ", kind " << kind << ", n " << n);
        const std::vector<std::vector<F>> seqs = {float_sequence<F>(kind, n, 100 + uint64_t(kind)), {},
                                                  float_sequence<F>((kind + 5) % kFloatSequenceKinds, n / 3 + 1,
                                                                    200 + uint64_t(kind))};
        std::vector<U> bits;
        const std::string err = device_ordered_sums(leaf, seqs, bits);
        ASSERT_TRUE(err.empty()) << err;
        for (size_t i = 0; i < seqs.size(); ++i) {
          const F want = ordered_sum_naive(std::span<const F>(seqs[i]));
          U want_bits;
          std::memcpy(&want_bits, &want, sizeof want);
          ASSERT_EQ(bits[i], want_bits) << "tree " << i;
          ++values_compared();
        }
      }
}
#endif

TEST(OrderedSumTwin, DeviceReductionEqualsThePlainLoop) {
  REQUIRE_GPU();
#if TWINMAF_HAVE_CUDA
  expect_device_sums<float, uint32_t>({1, 7, 64, 100});
  expect_device_sums<double, uint64_t>({7, 64});
#endif
}

}  // namespace
}  // namespace twinmaf::test
