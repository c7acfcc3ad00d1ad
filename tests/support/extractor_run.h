// Running one feature's extractor directly over pictures, for unit tests:
// pictures from packed clips or golden noise clips, option dictionaries, a
// configured and initialised extractor, and its output columns (compute then
// finish per frame, in order; no flush).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/collector.h"
#include "core/options.h"
#include "core/picture.h"
#include "features/feature.h"
#include "tests/support/memory_source.h"
#include "tests/support/noise_clip.h"

namespace twinmaf::test {

using PicPair = std::pair<PicturePtr, PicturePtr>;

// The first `frames` pictures of packed planar clips (raw-file layout).
inline std::vector<PicPair> read_pairs(const VideoFormat& fmt, std::vector<uint8_t> ref, std::vector<uint8_t> dis,
                                       int frames) {
  MemorySource rs(fmt, std::move(ref)), ds(fmt, std::move(dis));
  std::vector<PicPair> out;
  for (int i = 0; i < frames; ++i) {
    auto r = std::make_shared<Picture>(fmt, host_allocator());
    auto d = std::make_shared<Picture>(fmt, host_allocator());
    auto a = rs.read(*r);
    auto b = ds.read(*d);
    EXPECT_TRUE(a.ok() && *a && b.ok() && *b) << "frame " << i;
    out.emplace_back(r, d);
  }
  return out;
}

// Frames of a golden noise clip (shared/golden/noiseclip.py).
inline std::vector<PicPair> noise_pairs(const std::string& name, int frames) {
  NoiseClipSpec spec;
  EXPECT_TRUE(parse_noise_clip_name(name, &spec)) << name;
  std::vector<uint8_t> ref, dis;
  make_noise_clip(spec, &ref, &dis);
  return read_pairs({spec.w, spec.h, spec.fmt, spec.bpc}, std::move(ref), std::move(dis), frames);
}

inline OptionDict dict_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  OptionDict d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

// spec configured with d and initialised for f; *o receives the parsed options.
inline Result<std::unique_ptr<Extractor>> make_extractor(const FeatureSpec& spec, const OptionDict& d,
                                                         const VideoFormat& f, Options* o = nullptr) {
  TWINMAF_ASSIGN_OR_RETURN(Options opts, Options::parse(spec.name, spec.options, d));
  if (o) *o = opts;
  TWINMAF_ASSIGN_OR_RETURN(std::unique_ptr<Extractor> ex, spec.create(opts));
  TWINMAF_RETURN_IF_ERROR(ex->init(f));
  return ex;
}

// The output columns of spec over frames, in append order.
inline std::vector<Collector::Column> run_extractor(const FeatureSpec& spec, const OptionDict& d,
                                                    const std::vector<PicPair>& frames) {
  auto ex = make_extractor(spec, d, frames.at(0).first->format());
  EXPECT_TRUE(ex.ok()) << ex.status().message();
  if (!ex.ok()) return {};
  Collector out;
  for (unsigned i = 0; i < frames.size(); ++i) {
    FrameInput in;
    in.index = i;
    in.ref = frames[i].first.get();
    in.dis = frames[i].second.get();
    auto t = (*ex)->make_terms();
    EXPECT_TRUE((*ex)->compute(in, *t).ok());
    EXPECT_TRUE(settle_and_finish(**ex, i, *t, out).ok());
  }
  return out.columns();
}

}  // namespace twinmaf::test
