// Runs a feature with its default options on one frame (index 0): init,
// compute, finish, and returns what each step left.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/collector.h"
#include "core/options.h"
#include "features/feature.h"

namespace twinmaf::test {

struct OneFrame {
  Status init;                         // the rest is empty unless init succeeded
  std::unique_ptr<FrameTerms> terms;
  Collector scores;
};

inline OneFrame run_one_frame(const FeatureSpec& spec, const Picture& ref, const Picture& dis) {
  OneFrame out;
  auto opts = Options::parse(std::string(spec.name), spec.options, OptionDict{});
  EXPECT_TRUE(opts.ok());
  auto ext = spec.create(*opts);
  EXPECT_TRUE(ext.ok());
  out.init = (*ext)->init(ref.format());
  if (!out.init.ok()) return out;
  out.terms = (*ext)->make_terms();
  FrameInput in;
  in.ref = &ref;
  in.dis = &dis;
  EXPECT_TRUE((*ext)->compute(in, *out.terms).ok());
  EXPECT_TRUE(settle_and_finish(**ext, 0, *out.terms, out.scores).ok());
  return out;
}

}  // namespace twinmaf::test
