// Reads (ref, dis) picture pairs in lockstep into pictures of a pool, applying
// --frame_cnt. One input ending before the other ends the run with libvmaf's
// warning; read errors end it with the error.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "io/source.h"

namespace twinmaf {

class PairReader {
 public:
  PairReader(VideoSource& ref, VideoSource& dis, unsigned frame_cnt, PicturePool& pool,
             std::vector<std::string>* warnings)
      : ref_(ref), dis_(dis), frame_cnt_(frame_cnt), pool_(pool), warnings_(warnings) {}

  // The next pair and its index; false at the end.
  Result<bool> next(PicturePtr* ref, PicturePtr* dis, unsigned* index) {
    if (done_ || (frame_cnt_ && next_ >= frame_cnt_)) return false;
    *ref = pool_.acquire();
    *dis = pool_.acquire();
    auto r1 = ref_.read(**ref);
    auto r2 = dis_.read(**dis);
    done_ = true;
    if (!r1.ok()) return r1.status();
    if (!r2.ok()) return r2.status();
    if (!*r1 || !*r2) {
      if (*r1 != *r2) {
        const VideoSource& ended = *r1 ? dis_ : ref_;
        const VideoSource& other = *r1 ? ref_ : dis_;
        warnings_->push_back(fmt::format("\"{}\" ended before \"{}\"; scored the first {} frames",
                                         ended.path(), other.path(), next_));
      }
      return false;
    }
    done_ = false;
    *index = next_++;
    return true;
  }

 private:
  VideoSource& ref_;
  VideoSource& dis_;
  unsigned frame_cnt_;
  PicturePool& pool_;
  std::vector<std::string>* warnings_;
  unsigned next_ = 0;
  bool done_ = false;
};

}  // namespace twinmaf
