// Two Scorers' results compared bitwise (public API only): the same frames
// and metrics, every value's bits, every aggregate's bits. Returns the number
// of values compared (0 when an assertion failed).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "twinmaf/twinmaf.h"

namespace twinmaf::test {

inline size_t expect_same_scores(const Scorer& a, const Scorer& b) {
  size_t compared = 0;
  [&] {
    ASSERT_EQ(a.frames(), b.frames());
    ASSERT_EQ(a.metrics(), b.metrics());
    for (const std::string& m : a.metrics())
      for (unsigned i = 0; i < a.frames(); ++i) {
        const auto x = a.score(m, i), y = b.score(m, i);
        ASSERT_EQ(x.has_value(), y.has_value()) << m << " frame " << i;
        if (!x) continue;
        ASSERT_EQ(0, std::memcmp(&*x, &*y, sizeof(double))) << m << " frame " << i;
        ++compared;
      }
    ASSERT_EQ(a.aggregates().size(), b.aggregates().size());
    for (size_t k = 0; k < a.aggregates().size(); ++k) {
      ASSERT_EQ(a.aggregates()[k].first, b.aggregates()[k].first);
      ASSERT_EQ(0, std::memcmp(&a.aggregates()[k].second, &b.aggregates()[k].second, sizeof(double)))
          << a.aggregates()[k].first;
      ++compared;
    }
  }();
  EXPECT_GT(compared, 0u) << "nothing was compared";
  return compared;
}

}  // namespace twinmaf::test
