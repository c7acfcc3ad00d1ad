// score_many(): jobs on worker threads of one process. What later jobs reuse
// is process-wide already: the device's primary context (the CUDA runtime
// keeps it until exit) and the kernels it has loaded. Each job is a Scorer of
// its own, so its results are exactly a separate run's.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include "twinmaf/twinmaf.h"
#if TWINMAF_HAVE_CUDA
#include "gpu/device.h"
#endif

namespace twinmaf {

namespace {

bool may_use_gpu(const ScorerConfig& cfg) {
#if TWINMAF_HAVE_CUDA
  const auto gpu = [](Backend b) { return b != Backend::kCpu; };
  const bool asked = gpu(cfg.backend) || std::any_of(cfg.feature_backends.begin(), cfg.feature_backends.end(),
                                                     [&](const auto& fb) { return gpu(fb.second); });
  return asked && (cfg.cuda_context || !gpu::list_devices().empty());
#else
  (void)cfg;
  return false;
#endif
}

unsigned auto_in_flight(const Job& first) {
  if (may_use_gpu(first.config)) return 2;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, cores / std::max(1u, first.config.threads));
}

}  // namespace

unsigned gpu_count() {
#if TWINMAF_HAVE_CUDA
  return static_cast<unsigned>(gpu::list_devices().size());
#else
  return 0;
#endif
}

void score_many(const std::vector<Job>& jobs, const BatchOptions& options) {
  if (jobs.empty()) return;
  const unsigned per_gpu = options.in_flight ? options.in_flight : auto_in_flight(jobs.front());
  const unsigned workers = static_cast<unsigned>(
      std::min<size_t>(jobs.size(), size_t(per_gpu) * std::max<size_t>(1, options.gpus.size())));
  std::mutex mutex;  // guards next, running, done() calls and finished
  std::condition_variable changed;
  size_t next = 0, finished = 0;
  std::vector<Scorer*> running(workers, nullptr);
  const auto cancelled = [&] { return options.cancel && options.cancel->load(); };
  const auto report = [&](size_t job, std::unique_ptr<Scorer> scorer, const Status& st) {
    std::lock_guard lock(mutex);
    if (options.done) options.done(job, std::move(scorer), st);
    ++finished;
    changed.notify_all();
  };
  const auto work = [&](unsigned slot) {
    for (;;) {
      size_t job;
      {
        std::lock_guard lock(mutex);
        if (next == jobs.size()) return;
        job = next++;
      }
      Job j = jobs[job];
      if (!options.gpus.empty()) j.config.gpu = options.gpus[slot % options.gpus.size()];
      if (cancelled()) {
        report(job, nullptr, Status(Code::kCancelled, "the batch was cancelled"));
        continue;
      }
      std::unique_ptr<Scorer> scorer;
      Status st;
      // What escapes as an exception (out of memory) fails this job alone.
      try {
        auto created = Scorer::create(j.config);
        if (created.ok()) {
          scorer = std::move(*created);
          {
            std::lock_guard lock(mutex);
            running[slot] = scorer.get();
          }
          // A cancel between the check above and `running` being set.
          if (cancelled()) scorer->cancel();
          st = scorer->score(j.reference, j.distorted, j.limits);
        } else {
          st = created.status();
        }
      } catch (const std::bad_alloc&) {
        st = Status(Code::kInternal, "out of memory");
      } catch (const std::exception& e) {
        st = Status(Code::kInternal, std::string("internal error: ") + e.what());
      }
      {
        std::lock_guard lock(mutex);
        running[slot] = nullptr;
      }
      report(job, std::move(scorer), st);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) threads.emplace_back(work, w);
  {
    std::unique_lock lock(mutex);
    bool stopped = false;
    while (finished < jobs.size()) {
      changed.wait_for(lock, std::chrono::milliseconds(50));
      if (!stopped && cancelled()) {
        stopped = true;
        for (Scorer* s : running)
          if (s) s->cancel();
      }
    }
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace twinmaf
