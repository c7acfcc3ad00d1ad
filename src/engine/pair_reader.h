// Reads (ref, dis) picture pairs in lockstep into pictures of a pool, applying
// --frame_cnt. One input ending before the other ends the run with libvmaf's
// warning; read errors end it with the error.
//
// With threads > 1 and two random-access sources (raw YUV), `threads` workers
// read frames ahead in parallel (positional reads, at most 2 * threads frames
// ahead of the consumer) and next() hands them out in index order: the same
// pairs, warnings and errors as the sequential reader, sooner.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "io/source.h"

namespace twinmaf {

class PairReader {
 public:
  PairReader(VideoSource& ref, VideoSource& dis, unsigned frame_cnt, PicturePool& pool,
             std::vector<std::string>* warnings, unsigned threads = 1);
  ~PairReader();
  PairReader(const PairReader&) = delete;
  PairReader& operator=(const PairReader&) = delete;

  // The next pair and its index; false at the end.
  Result<bool> next(PicturePtr* ref, PicturePtr* dis, unsigned* index);

 private:
  struct Read {
    PicturePtr ref, dis;
    Result<bool> r1 = false, r2 = false;
  };
  Read read_pair(unsigned i, bool sequential);
  Result<bool> deliver(Read& r, PicturePtr* ref, PicturePtr* dis, unsigned* index);
  void worker();

  VideoSource& ref_;
  VideoSource& dis_;
  unsigned frame_cnt_;
  PicturePool& pool_;
  std::vector<std::string>* warnings_;
  unsigned next_ = 0;
  bool done_ = false;

  // Parallel mode.
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable produced_, space_;
  std::map<unsigned, Read> ready_;
  unsigned claimed_ = 0;
  unsigned window_ = 0;
  bool stop_ = false;
};

}  // namespace twinmaf
