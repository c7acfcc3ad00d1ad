// Wall-clock timing for --profile: milliseconds since a point, and a sum of
// intervals that several threads add to.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace twinmaf {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Milliseconds summed by several threads (relaxed: read after they joined).
class MsSum {
 public:
  void add(Clock::time_point since) {
    ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count(),
                  std::memory_order_relaxed);
  }
  double ms() const { return static_cast<double>(ns_.load()) / 1e6; }

 private:
  std::atomic<int64_t> ns_{0};
};

}  // namespace twinmaf
