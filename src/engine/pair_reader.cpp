#include "engine/pair_reader.h"

namespace twinmaf {

PairReader::PairReader(VideoSource& ref, VideoSource& dis, unsigned frame_cnt, PicturePool& pool,
                       std::vector<std::string>* warnings, unsigned threads)
    : ref_(ref), dis_(dis), frame_cnt_(frame_cnt), pool_(pool), warnings_(warnings) {
  if (threads > 1 && ref.random_access() && dis.random_access()) {
    window_ = 2 * threads;
    for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this] { worker(); });
  }
}

PairReader::~PairReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  for (std::thread& t : workers_) t.join();
}

PairReader::Read PairReader::read_pair(unsigned i, bool sequential) {
  Read r;
  r.ref = pool_.acquire();
  r.dis = pool_.acquire();
  r.r1 = sequential ? ref_.read(*r.ref) : ref_.read_frame(i, *r.ref);
  r.r2 = sequential ? dis_.read(*r.dis) : dis_.read_frame(i, *r.dis);
  return r;
}

void PairReader::worker() {
  for (;;) {
    unsigned i;
    {
      std::unique_lock lock(mutex_);
      space_.wait(lock, [&] { return stop_ || claimed_ < next_ + window_; });
      if (stop_) return;
      i = claimed_++;
    }
    Read r;
    if (frame_cnt_ && i >= frame_cnt_) {
      r.r1 = r.r2 = false;  // past --frame_cnt: the end, as for a short file
    } else {
      r = read_pair(i, false);
    }
    const bool last = !r.r1.ok() || !r.r2.ok() || !*r.r1 || !*r.r2;
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(i, std::move(r));
    }
    produced_.notify_all();
    if (last) return;  // later indices are past the end too
  }
}

Result<bool> PairReader::deliver(Read& r, PicturePtr* ref, PicturePtr* dis, unsigned* index) {
  done_ = true;
  if (!r.r1.ok()) return r.r1.status();
  if (!r.r2.ok()) return r.r2.status();
  if (!*r.r1 || !*r.r2) {
    if (*r.r1 != *r.r2) {
      const VideoSource& ended = *r.r1 ? dis_ : ref_;
      const VideoSource& other = *r.r1 ? ref_ : dis_;
      warnings_->push_back(fmt::format("\"{}\" ended before \"{}\"; scored the first {} frames", ended.path(),
                                       other.path(), next_));
    }
    return false;
  }
  done_ = false;
  *ref = std::move(r.ref);
  *dis = std::move(r.dis);
  *index = next_;
  return true;
}

Result<bool> PairReader::next(PicturePtr* ref, PicturePtr* dis, unsigned* index) {
  if (done_ || (frame_cnt_ && next_ >= frame_cnt_)) return false;
  if (workers_.empty()) {
    Read r = read_pair(next_, true);
    TWINMAF_ASSIGN_OR_RETURN(bool got, deliver(r, ref, dis, index));
    if (got) ++next_;
    return got;
  }
  Read r;
  {
    std::unique_lock lock(mutex_);
    produced_.wait(lock, [&] { return ready_.count(next_) > 0; });
    auto it = ready_.find(next_);
    r = std::move(it->second);
    ready_.erase(it);
  }
  auto got = deliver(r, ref, dis, index);
  if (got.ok() && *got) {
    std::lock_guard lock(mutex_);
    ++next_;
  }
  space_.notify_all();
  return got;
}

}  // namespace twinmaf
