// Reads a reference and its distorted inputs in lockstep into pictures of a
// pool (per input, where source_pools names one: NVDEC's inputs read into
// device memory), applying --frame_cnt. An input ending before another ends the run
// with libvmaf's warning for each pair (the reference and a distorted input)
// of different lengths, and ended() says which inputs had ended (a distorted
// input that had not is scored again alone: api/scorer.cpp); read errors end
// it with the error.
//
// With threads > 1 and random-access sources only (raw YUV), `threads`
// workers read frames ahead in parallel (positional reads, at most
// threads + 2 frames ahead of the consumer) and next() hands them out in
// index order. Where some source is a stream (a decoder), every source gets
// a thread of its own that reads it in order, at most `ahead` frames ahead
// of the consumer: all decoders run at once. Either way: the same frames,
// warnings and errors as the sequential reader (threads 1, no streams),
// sooner.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "core/picture.h"
#include "engine/frame_loop.h"
#include "io/source.h"

namespace twinmaf {

class InputReader final : public FrameFeed {
 public:
  InputReader(VideoSource& ref, std::vector<VideoSource*> dis, unsigned frame_cnt, PicturePool& pool,
              std::vector<std::string>* warnings, unsigned threads = 1, unsigned first_index = 0,
              unsigned ahead = 0, std::vector<PicturePool*> source_pools = {});
  ~InputReader() override;
  InputReader(const InputReader&) = delete;
  InputReader& operator=(const InputReader&) = delete;

  // The next frame set; false at the end.
  Result<bool> next(FrameSet* out) override;
  std::string describe() const override;
  // After the end: per input (the reference first), whether it had ended
  // there. Empty where none or all had (--frame_cnt, equal lengths).
  const std::vector<bool>& ended() const { return ended_; }

 private:
  struct Read {
    FrameSet set;
    std::vector<Result<bool>> got;  // ref first, then each distorted input
  };
  Read read_set(unsigned i, bool sequential);
  Result<bool> deliver(Read& r, FrameSet* out);
  void worker();
  void stream(size_t k);
  Read take_streamed();

  std::vector<VideoSource*> sources_;  // ref, then the distorted inputs
  unsigned frame_cnt_;
  unsigned first_index_;  // the number of the first frame read (a segment's)
  std::vector<PicturePool*> pools_;  // per source: `pool`, or its entry of source_pools
  std::vector<std::string>* warnings_;
  unsigned next_ = 0;
  bool done_ = false;
  std::vector<bool> ended_;

  // Parallel and stream modes.
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable produced_, space_;
  std::map<unsigned, Read> ready_;
  unsigned claimed_ = 0;
  unsigned window_ = 0;
  bool stop_ = false;
  // Stream mode: each source's reads in order (a false or an error last).
  struct Streamed {
    PicturePtr pic;
    Result<bool> got;
  };
  std::vector<std::deque<Streamed>> streamed_;
};

}  // namespace twinmaf
