// A source read at a higher bit depth than its file's: libvmaf's
// common_bitdepth (--aom_ctc v6.0 and later), which scores a reference and a
// distorted input of different depths at the higher one.
//
// Every sample is shifted left by the difference of the depths (an 8-bit 16
// becomes a 10-bit 64), the convention of every depth conversion in libvmaf
// and of the codecs' internal bit depths. Deliberate deviation: libvmaf's CLI
// instead reads the lower-depth Y4M file as if its samples had the higher
// depth's width (2 bytes for 8 -> 10 bit), which misreads the file; twinmaf
// converts (docs/cli.md).
#pragma once

#include <memory>

#include "io/source.h"

namespace twinmaf {

// `src` seen at depth `bpc` (> its own).
std::unique_ptr<VideoSource> with_bit_depth(std::unique_ptr<VideoSource> src, int bpc);

}  // namespace twinmaf
