#include "engine/input_reader.h"

#include <algorithm>

namespace twinmaf {

InputReader::InputReader(VideoSource& ref, std::vector<VideoSource*> dis, unsigned frame_cnt, PicturePool& pool,
                         std::vector<std::string>* warnings, unsigned threads, unsigned first_index,
                         unsigned ahead, std::vector<PicturePool*> source_pools)
    : frame_cnt_(frame_cnt), first_index_(first_index), pools_(std::move(source_pools)), warnings_(warnings) {
  sources_.push_back(&ref);
  sources_.insert(sources_.end(), dis.begin(), dis.end());
  pools_.resize(sources_.size(), &pool);
  const bool random = std::all_of(sources_.begin(), sources_.end(), [](VideoSource* s) { return s->random_access(); });
  if (!random && ahead > 0) {
    window_ = ahead;
    streamed_.resize(sources_.size());
    for (size_t k = 0; k < sources_.size(); ++k) workers_.emplace_back([this, k] { stream(k); });
  } else if (threads > 1 && random) {
    window_ = threads + 2;
    for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this] { worker(); });
  }
}

InputReader::~InputReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  for (std::thread& t : workers_) t.join();
}

InputReader::Read InputReader::read_set(unsigned i, bool sequential) {
  Read r;
  r.set.index = i;
  for (size_t k = 0; k < sources_.size(); ++k) {
    // Past a file's end nothing is read and no picture taken: read-ahead
    // beyond the last frame costs no (pinned) memory.
    const std::optional<uint64_t> begun = sequential ? std::nullopt : sources_[k]->frames_begun();
    if (begun && i >= *begun) {
      r.got.push_back(false);
      continue;
    }
    PicturePtr pic = pools_[k]->acquire();
    r.got.push_back(sequential ? sources_[k]->read(*pic) : sources_[k]->read_frame(i, *pic));
    if (k == 0) r.set.ref = std::move(pic);
    else r.set.dis.push_back(std::move(pic));
  }
  return r;
}

void InputReader::worker() {
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
      r.got.assign(sources_.size(), Result<bool>(false));  // past --frame_cnt: the end
    } else {
      r = read_set(i, false);
    }
    const bool last = std::any_of(r.got.begin(), r.got.end(), [](const Result<bool>& g) { return !g.ok() || !*g; });
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(i, std::move(r));
    }
    produced_.notify_all();
    if (last) return;  // later indices are past the end too
  }
}

void InputReader::stream(size_t k) {
  for (unsigned i = 0;; ++i) {
    {
      std::unique_lock lock(mutex_);
      space_.wait(lock, [&] { return stop_ || streamed_[k].size() < window_; });
      if (stop_) return;
    }
    Streamed s{nullptr, false};
    if (!frame_cnt_ || i < frame_cnt_) {  // past --frame_cnt: the end
      s.got = sources_[k]->read(*pools_[k], s.pic);
    }
    const bool last = !s.got.ok() || !*s.got;
    {
      std::lock_guard lock(mutex_);
      streamed_[k].push_back(std::move(s));
    }
    produced_.notify_all();
    if (last) return;
  }
}

InputReader::Read InputReader::take_streamed() {
  Read r;
  r.set.index = next_;
  {
    std::unique_lock lock(mutex_);
    for (size_t k = 0; k < sources_.size(); ++k) {
      produced_.wait(lock, [&] { return !streamed_[k].empty(); });
      Streamed& s = streamed_[k].front();
      r.got.push_back(std::move(s.got));
      if (k == 0) r.set.ref = std::move(s.pic);
      else r.set.dis.push_back(std::move(s.pic));
      streamed_[k].pop_front();
    }
  }
  space_.notify_all();
  return r;
}

Result<bool> InputReader::deliver(Read& r, FrameSet* out) {
  done_ = true;
  for (const Result<bool>& g : r.got)
    if (!g.ok()) return g.status();
  const auto ended = [&](size_t k) { return !*r.got[k]; };
  size_t n_ended = 0;
  for (size_t k = 0; k < r.got.size(); ++k) n_ended += ended(k);
  if (n_ended) {
    // Libvmaf's warning, per pair of the reference and a distorted input of
    // different lengths. An input that ended before any frame: the run's
    // error says so.
    if (n_ended < r.got.size())
      for (size_t k = 0; k < r.got.size(); ++k) ended_.push_back(ended(k));
    if (!ended_.empty() && first_index_ + next_ > 0) {
      for (size_t k = 1; k < r.got.size(); ++k) {
        if (ended(k) == ended(0)) continue;
        const VideoSource* first = ended(0) ? sources_[0] : sources_[k];
        const VideoSource* other = ended(0) ? sources_[k] : sources_[0];
        warnings_->push_back(fmt::format("\"{}\" ended before \"{}\"; scored the first {} frames", first->path(),
                                         other->path(), first_index_ + next_));
      }
    }
    return false;
  }
  done_ = false;
  *out = std::move(r.set);
  out->index = first_index_ + next_;
  return true;
}

std::string InputReader::describe() const { return sources_[0]->path() + " and " + sources_[1]->path(); }

Result<bool> InputReader::next(FrameSet* out) {
  if (done_ || (frame_cnt_ && next_ >= frame_cnt_)) return false;
  // Sequential and stream modes: only this thread reads next_.
  if (workers_.empty() || !streamed_.empty()) {
    Read r = streamed_.empty() ? read_set(next_, true) : take_streamed();
    TWINMAF_ASSIGN_OR_RETURN(bool got, deliver(r, out));
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
  auto got = deliver(r, out);
  if (got.ok() && *got) {
    std::lock_guard lock(mutex_);
    ++next_;
  }
  space_.notify_all();
  return got;
}

}  // namespace twinmaf
