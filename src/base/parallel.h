// Row bands of one frame in parallel: intra-frame parallelism for the CPU
// kernels of large frames.
//
// The engine opens a BandScope around each frame's CPU features with the
// width of its thread pool (the oneTBB arena running the frame pipeline); a
// kernel asks band_width() and splits its rows into at most that many bands,
// run by run_bands() as tasks of that arena. Outside a scope the width is 1
// and run_bands() runs the bands in order on the caller (the caller-thread
// loop of --threads 0, tests, the API without workers).
//
// Kernels keep every result exact under any split: bands produce integer
// partial sums (exact in any order) or disjoint rows of an output.
#pragma once

#include <type_traits>

namespace twinmaf {

// The band width of the calling thread while alive (nests; restores).
class BandScope {
 public:
  explicit BandScope(int width);
  ~BandScope();
  BandScope(const BandScope&) = delete;
  BandScope& operator=(const BandScope&) = delete;

 private:
  int saved_;
};

// At most how many bands the calling thread's frame should be split into.
int band_width();

// Runs fn(0) .. fn(n - 1), in parallel when band_width() > 1. Isolated: while
// the caller waits it runs only these bands (never another frame's work), so
// per-thread scratch of the caller's frame stays untouched. Band tasks run
// with band width 1. Allocates nothing of its own (fn is passed by address).
namespace detail {
void run_bands(int n, void (*call)(void* fn, int band), void* fn);
}  // namespace detail

template <class F>
void run_bands(int n, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  detail::run_bands(n, [](void* f, int band) { (*static_cast<Fn*>(f))(band); }, const_cast<void*>(static_cast<const void*>(&fn)));
}

}  // namespace twinmaf
