#include "engine/frame_loop.h"

namespace twinmaf {

void FrameWork::release_pictures() {
  set.ref.reset();
  set.dis.clear();
  prev_ref = {};
  prev_dis.clear();
}

FrameInput FrameWork::input(unsigned lane) const {
  FrameInput in;
  in.index = set.index;
  in.ref = set.ref.get();
  in.dis = set.dis[lane].get();
  for (int k = 0; k < kMaxHistory; ++k) {
    in.prev_ref[size_t(k)] = prev_ref[size_t(k)].get();
    if (lane < prev_dis.size()) in.prev_dis[size_t(k)] = prev_dis[lane][size_t(k)].get();
  }
  return in;
}

void FrameHistory::fill(FrameWork& w) const {
  w.prev_ref = {};
  w.prev_dis.assign(w.set.dis.size(), {});
  w.prev_slot.fill(-1);
  for (int k = 0; k < depth() && size_t(k) < last_.size(); ++k) {
    const Entry& e = last_[size_t(k)];
    w.prev_slot[size_t(k)] = e.slot;
    if (k < ref_depth_) w.prev_ref[size_t(k)] = e.ref;
    if (k < dis_depth_)
      for (size_t l = 0; l < e.dis.size(); ++l) w.prev_dis[l][size_t(k)] = e.dis[l];
  }
}

void FrameHistory::push(const FrameWork& w) {
  if (depth() == 0) return;
  Entry e;
  e.ref = w.set.ref;
  if (dis_depth_ > 0) e.dis = w.set.dis;
  e.slot = w.device ? w.slot : -1;
  last_.push_front(std::move(e));
  if (last_.size() > size_t(depth())) last_.pop_back();
}

}  // namespace twinmaf
