// Row bands on oneTBB (parallel.h).
#include "base/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace twinmaf {

namespace {
thread_local int t_band_width = 1;
}  // namespace

BandScope::BandScope(int width) : saved_(t_band_width) { t_band_width = width > 1 ? width : 1; }
BandScope::~BandScope() { t_band_width = saved_; }

int band_width() { return t_band_width; }

namespace detail {

void run_bands(int n, void (*call)(void* fn, int band), void* fn) {
  if (n <= 1 || t_band_width <= 1) {
    for (int i = 0; i < n; ++i) call(fn, i);
    return;
  }
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(
        tbb::blocked_range<int>(0, n, 1),
        [&](const tbb::blocked_range<int>& r) {
          BandScope inner(1);
          for (int i = r.begin(); i < r.end(); ++i) call(fn, i);
        },
        tbb::simple_partitioner());
  });
}

}  // namespace detail
}  // namespace twinmaf
