// Picture pools, and the public picture types (twinmaf/picture.h).
#pragma once

#include <cstddef>
#include <memory>

#include "base/status.h"
#include "twinmaf/picture.h"

namespace twinmaf {

// The deepest history a feature may read: previous reference (or distorted)
// pictures of frames index-1 .. index-kMaxHistory (features/feature.h,
// FeatureNeeds). The frame ring keeps that many frames resident behind the
// ones in flight.
inline constexpr int kMaxHistory = 2;

// Recycles pictures of one format. acquire() hands out a picture whose last
// reference returns it to the pool; the pool's state lives as long as any
// picture it handed out.
class PicturePool {
 public:
  // Pictures with storage for planes [0, planes) (Picture's constructor).
  PicturePool(const VideoFormat& fmt, PictureAllocator& alloc, int planes = 3);
  PicturePtr acquire();
  const VideoFormat& format() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace twinmaf
