// --align: the frame offset between a reference and a distorted input, found
// by comparing luma on a sample of frames at every offset in [-range, range].
//
// Offset d means distorted frame j shows reference frame j + d: d = 3 when
// the encode lost its first 3 frames (scored by skipping 3 reference frames),
// d = -2 when it holds 2 extra leading frames (skipping 2 distorted frames).
//
// Method: each input's first range + kAlignWindow frames are reduced to luma
// thumbnails (means of f x f blocks, f = ceil(w / kAlignThumbWidth), samples
// divided by 2^bpc - 1, so inputs of different depths compare); for each d
// the mean squared error over up to kAlignWindow frame pairs (distorted
// frames from max(0, -d), reference frames d later) decides. Smallest MSE
// wins; ties go to the smallest |d|, then to d > 0. An offset compared on
// fewer than half the pairs of d = 0 is not considered (short inputs).
#pragma once

#include <vector>

#include "base/status.h"
#include "io/source.h"

namespace twinmaf {

inline constexpr unsigned kAlignWindow = 30;
inline constexpr int kAlignThumbWidth = 480;

struct OffsetMatch {
  int offset = 0;
  double psnr = 0;       // luma PSNR of the thumbnails at `offset` (dB; inf: identical)
  double psnr_zero = 0;  // ... at offset 0
  unsigned pairs = 0;    // frame pairs compared at `offset`
  bool ambiguous = false;  // another offset has the same error
};

// Reads `ref` and each of `dis` (same size; read from their current position,
// which they leave) and finds each distorted input's offset.
Result<std::vector<OffsetMatch>> find_alignment(VideoSource& ref, const std::vector<VideoSource*>& dis,
                                              unsigned range);

}  // namespace twinmaf
