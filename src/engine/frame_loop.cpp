#include "engine/frame_loop.h"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <deque>
#include <optional>

namespace twinmaf {

void LoopFrame::release_pictures() {
  set.ref.reset();
  set.dis.clear();
  prev_ref = {};
  prev_dis.clear();
}

FrameInput LoopFrame::input(unsigned lane) const {
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

void FrameHistory::fill(LoopFrame& w) const {
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

void FrameHistory::push(const LoopFrame& w) {
  if (depth() == 0) return;
  Entry e;
  e.ref = w.set.ref;
  if (dis_depth_ > 0) e.dis = w.set.dis;
  e.slot = w.device ? w.slot : -1;
  last_.push_front(std::move(e));
  if (last_.size() > size_t(depth())) last_.pop_back();
}

void drive_pipeline(LoopStages& stages, const LoopPlan& plan) {
  tbb::task_arena arena(plan.threads);
  arena.execute([&] {
    auto admit = tbb::make_filter<void, LoopFrame*>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control& fc) {
      std::unique_ptr<LoopFrame> w;
      if (!stages.failed()) w = stages.admit();
      if (!w) fc.stop();
      return w.release();
    });
    auto parallel = tbb::make_filter<LoopFrame*, LoopFrame*>(tbb::filter_mode::parallel, [&](LoopFrame* w) {
      stages.compute(*w, Pass::kParallel);
      return w;
    });
    auto ordered = tbb::make_filter<LoopFrame*, LoopFrame*>(tbb::filter_mode::serial_in_order, [&](LoopFrame* w) {
      stages.compute(*w, Pass::kOrdered);
      stages.collect(*w);
      return w;
    });
    auto settle = tbb::make_filter<LoopFrame*, LoopFrame*>(tbb::filter_mode::parallel, [&](LoopFrame* w) {
      stages.settle(*w);
      return w;
    });
    auto complete = tbb::make_filter<LoopFrame*, void>(tbb::filter_mode::serial_in_order, [&](LoopFrame* w) {
      std::unique_ptr<LoopFrame> own(w);
      stages.complete(*own);
    });
    if (plan.settle)
      tbb::parallel_pipeline(size_t(plan.frames_in_loop), admit & parallel & ordered & settle & complete);
    else
      tbb::parallel_pipeline(size_t(plan.frames_in_loop), admit & parallel & ordered & complete);
  });
}

void drive_inline(LoopStages& stages, const LoopPlan& plan) {
  std::deque<std::unique_ptr<LoopFrame>> loop, settling;
  std::optional<tbb::task_arena> arena;
  if (plan.settle && plan.settle_threads > 0) arena.emplace(plan.settle_threads, 0);
  // Completes the settled frames at the front; with `all`, waits for each.
  const auto complete_settled = [&](bool all) {
    while (!settling.empty()) {
      LoopFrame& f = *settling.front();
      if (all) f.settle_done.wait(false);
      if (!f.settle_done.load(std::memory_order_acquire)) return;
      stages.complete(f);
      settling.pop_front();
    }
  };
  const auto retire = [&](std::unique_ptr<LoopFrame> w) {
    stages.collect(*w);
    if (!arena) {
      stages.settle(*w);
      return stages.complete(*w);
    }
    w->release_pictures();  // settling reads the terms alone
    LoopFrame* f = w.get();
    settling.push_back(std::move(w));
    arena->enqueue([&stages, f] {
      stages.settle(*f);
      f->settle_done.store(true, std::memory_order_release);
      f->settle_done.notify_one();
    });
    if (settling.size() > size_t(2 * plan.settle_threads)) settling.front()->settle_done.wait(false);
    complete_settled(false);
  };
  for (;;) {
    if (static_cast<int>(loop.size()) == plan.frames_in_loop) {
      retire(std::move(loop.front()));
      loop.pop_front();
    }
    if (stages.failed()) break;
    std::unique_ptr<LoopFrame> w = stages.admit();
    if (!w) break;
    stages.compute(*w, Pass::kParallel);
    stages.compute(*w, Pass::kOrdered);
    loop.push_back(std::move(w));
  }
  for (; !loop.empty(); loop.pop_front()) retire(std::move(loop.front()));
  complete_settled(true);
}

}  // namespace twinmaf
