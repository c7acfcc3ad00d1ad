// Google Benchmark: compute() of every registered feature (default options) on
// seeded full-range noise, per frame, for a few sizes and depths, on the
// scalar references ("_ref": cpumask ~0) and on the best SIMD target
// ("_simd", base/simd.h).
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include "base/simd.h"
#include "features/feature.h"

namespace {

using namespace twinmaf;

std::unique_ptr<Picture> noise_picture(const VideoFormat& f, uint32_t seed) {
  auto pic = std::make_unique<Picture>(f, host_allocator());
  std::mt19937 rng(seed);
  const uint32_t max = (1u << f.bpc) - 1;
  for (int p = 0; p < f.planes(); ++p)
    for (int y = 0; y < f.stored_h(p); ++y) {
      uint8_t* row = pic->mutable_data(p) + y * pic->stride(p);
      for (int x = 0; x < f.stored_w(p); ++x) {
        const uint32_t v = rng() & max;
        if (f.bpc > 8) reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v);
        else row[x] = static_cast<uint8_t>(v);
      }
    }
  return pic;
}

void bench_feature(benchmark::State& state, const FeatureSpec* spec, VideoFormat f, bool simd) {
  simd_set_cpumask(simd ? 0 : ~uint64_t{0});
  auto opts = Options::parse(spec->name, spec->options, OptionDict());
  auto ex = spec->create(*opts);
  if (!ex.ok() || !(*ex)->init(f).ok()) {
    state.SkipWithError("unsupported format");
    return;
  }
  auto ref = noise_picture(f, 1), dis = noise_picture(f, 2), prev = noise_picture(f, 3);
  FrameInput in{2, ref.get(), dis.get(), {prev.get(), prev.get()}, {prev.get(), prev.get()}};
  auto terms = (*ex)->make_terms();
  for (auto _ : state) {
    const Status s = (*ex)->compute(in, *terms);
    benchmark::DoNotOptimize(s);
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

int register_all() {
  const VideoFormat formats[] = {{1920, 1080, PixFmt::k420, 8}, {1920, 1080, PixFmt::k420, 10},
                                 {3840, 2160, PixFmt::k420, 8}};
  for (const FeatureSpec* spec : feature_registry())
    for (const VideoFormat& f : formats)
      for (bool simd : {false, true})
        benchmark::RegisterBenchmark(
            fmt::format("{}_compute_{}x{}_{}bpc_{}", spec->name, f.w, f.h, f.bpc, simd ? "simd" : "ref").c_str(),
            [spec, f, simd](benchmark::State& s) { bench_feature(s, spec, f, simd); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  return 0;
}

const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
