// twinmaf: libvmaf's `vmaf` command line, drop-in, plus twinmaf's flags.
// Argument parsing and printing only; everything else is the library's
// public API (twinmaf/twinmaf.h).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "tools/twinmaf/args.h"
#include "tools/twinmaf/batch.h"
#include "tools/twinmaf/split_exit.h"

namespace {

// Progress on stderr, never in result files. On a terminal: one line, redrawn
// at most 4 times a second and erased at the end. Elsewhere (--progress): a
// line every 2 seconds and one for the last frame (or job, in a batch).
class ProgressPrinter {
 public:
  ProgressPrinter(bool tty, const char* unit, const char* rate, bool enabled)
      : tty_(tty), unit_(unit), rate_(rate), enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  void update(const twinmaf::Progress& p) {
    if (!enabled_) return;
    last_ = p;
    if (p.seconds < next_) return;
    next_ = p.seconds + (tty_ ? 0.25 : 2.0);
    print(p);
  }
  // Erases the terminal's line before other output.
  void clear() {
    if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }
  void finish() {
    if (!enabled_) return;
    if (tty_) {
      clear();
    } else if (last_.frames != printed_) {
      print(last_);
    }
    std::fflush(stderr);
  }

 private:
  void print(const twinmaf::Progress& p) {
    printed_ = p.frames;
    std::string line = "twinmaf: " + std::to_string(p.frames);
    char buf[64];
    if (p.total > 0)
      std::snprintf(buf, sizeof buf, "/%u %s (%u%%)", p.total, unit_, std::min(100u, unsigned(100.0 * p.frames / p.total)));
    else
      std::snprintf(buf, sizeof buf, " %s", unit_);
    line += buf;
    if (p.seconds > 0) {
      const double fps = p.frames / p.seconds;
      std::snprintf(buf, sizeof buf, ", %.1f %s", fps, rate_);
      line += buf;
      if (p.total > p.frames && fps > 0) line += ", ETA " + clock_text((p.total - p.frames) / fps);
    }
    if (tty_) {
      std::fprintf(stderr, "\r%s\033[K", line.c_str());
      drawn_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
  static std::string clock_text(double seconds) {
    const auto s = static_cast<unsigned long>(std::lround(seconds));
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%lu:%02lu", s / 60, s % 60);
    return buf;
  }

  bool tty_;
  const char* unit_;
  const char* rate_;
  bool enabled_;
  bool drawn_ = false;
  unsigned printed_ = 0;  // frames of the last line printed
  double next_ = 0;
  twinmaf::Progress last_;
};

void print_stats(const twinmaf::Scorer& scorer, unsigned lane, const std::string& indent) {
  for (const std::string& metric : scorer.metrics(lane)) {
    auto s = scorer.stats(metric, lane);
    if (!s.ok()) continue;
    std::printf("%s%s: mean %f, stddev %f, p1 %f, p5 %f, p50 %f", indent.c_str(), metric.c_str(), s->mean, s->stddev,
                s->p1, s->p5, s->p50);
    if (!s->worst.empty()) {
      std::printf(", worst frames");
      for (const auto& [frame, value] : s->worst) std::printf(" %u (%f)", frame, value);
    }
    if (s->non_finite) std::printf(", %u of %u frames not finite (left out)", s->non_finite, s->frames + s->non_finite);
    std::printf("\n");
  }
}

// A run's messages on stderr: alignment, scaling, warnings, and with
// --verbose / --profile where each feature and input ran and the timings.
// `where` names the job in a batch ("jobs.jsonl:3: ").
void print_info(const twinmaf::CliRequest& req, const twinmaf::Scorer& scorer, const std::string& where) {
  const twinmaf::RunInfo& info = scorer.info();
  const char* at = where.c_str();
  for (const twinmaf::Alignment& a : info.alignment)
    std::fprintf(stderr,
                 "twinmaf: align: %s%s: offset %+d (reference frame %u = distorted frame %u), luma PSNR %.2f dB "
                 "(%.2f dB without offset)%s\n",
                 at, a.input.c_str(), a.offset, a.skip_ref, a.skip_dis, a.psnr, a.psnr_zero,
                 a.ambiguous ? "; ambiguous: other offsets match as well" : "");
  for (const twinmaf::ScaledInput& s : info.scaled)
    std::fprintf(stderr, "twinmaf: scale: %s%s: %dx%d -> %dx%d (%s)\n", at, s.input.c_str(), s.from_w, s.from_h,
                 s.to_w, s.to_h, s.scaler.c_str());
  for (const std::string& w : info.warnings) std::fprintf(stderr, "twinmaf: warning: %s%s\n", at, w.c_str());
  if (req.verbose) {
    std::fprintf(stderr, "twinmaf: %scpu kernels: %s\n", at, info.simd.c_str());
    for (const auto& [feature, backend] : info.backends)
      std::fprintf(stderr, "twinmaf: %s%s: %s%s\n", at, feature.c_str(), backend.c_str(),
                   backend == "cuda" ? (" (" + info.device + ")").c_str() : "");
    for (const twinmaf::InputDecoding& d : info.decoding)
      std::fprintf(stderr, "twinmaf: %sdecode: %s: %s (%s)\n", at, d.input.c_str(), d.decoder.c_str(),
                   d.why.c_str());
  }
  for (const std::string& line : info.profile) std::fprintf(stderr, "%s%s\n", at, line.c_str());
}

// A scored run's pooled scores (and --stats) on stdout.
void print_results(const twinmaf::CliRequest& req, const twinmaf::Scorer& scorer, const std::string& where) {
  if (req.quiet && !req.stats) return;
  const unsigned lanes = static_cast<unsigned>(req.distorted.size());
  for (unsigned l = 0; l < lanes; ++l) {
    std::string indent = where;
    if (lanes > 1) {
      if (where.empty()) {
        std::printf("%s\n", req.distorted[l].path.c_str());
        indent = "  ";
      } else {
        indent += req.distorted[l].path + ": ";
      }
    }
    if (!req.quiet)
      for (const twinmaf::ModelSummary& s : scorer.summary(l)) std::printf("%s%s\n", indent.c_str(), s.text.c_str());
    if (req.stats) print_stats(scorer, l, indent);
  }
}

int run_batch(twinmaf::CliRequest& batch, ProgressPrinter& progress) {
  if (!batch.batch_summary.empty()) {
    if (const twinmaf::Status st = twinmaf::check_output_path(batch.batch_summary); !st.ok()) {
      std::fprintf(stderr, "twinmaf: error: --batch-summary: %s\n", st.message().c_str());
      return st.exit_code();
    }
  }
  auto text = twinmaf::cli::read_jobs(batch.batch);
  if (!text.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", text.status().message().c_str());
    return text.status().exit_code();
  }
  const std::vector<twinmaf::cli::BatchJob> jobs = twinmaf::cli::parse_jobs(*text, batch.batch_defaults, !batch.batch_gpus.empty());
  if (jobs.empty()) {
    std::fprintf(stderr, "twinmaf: error: --batch %s: no job\n", batch.batch.c_str());
    return 2;
  }
  bool gpu = false, verbose = false;
  for (const twinmaf::cli::BatchJob& j : jobs) {
    gpu = gpu || (j.status.ok() && twinmaf::cli::may_use_gpu(j.request));
    verbose = verbose || (j.status.ok() && j.request.verbose);
  }
  if (gpu) twinmaf::cli::split_exit();
  twinmaf::set_ffmpeg_log(verbose);
  twinmaf::cli::BatchPrinter print;
  print.info = [&](const twinmaf::CliRequest& req, const twinmaf::Scorer& scorer, const std::string& where) {
    progress.clear();
    print_info(req, scorer, where);
  };
  print.results = [&](const twinmaf::CliRequest& req, const twinmaf::Scorer& scorer, const std::string& where) {
    progress.clear();
    print_results(req, scorer, where);
    std::fflush(stdout);
  };
  print.progress = [&](size_t done, size_t total, double seconds) {
    progress.update(twinmaf::Progress{unsigned(done), seconds, unsigned(total)});
  };
  const int code = twinmaf::cli::run_batch(batch, jobs, print);
  progress.finish();
  return code;
}

int run(int argc, char** argv) {
  auto req = twinmaf::parse_cli(argc, argv);
  if (!req.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", req.status().message().c_str());
    return 2;
  }
  if (!req->help.empty()) {
    std::printf("%s", req->help.c_str());
    return 0;
  }
  if (req->version) {
    std::fprintf(stderr, "twinmaf %s\n", twinmaf::version());
    return 0;
  }
  const bool tty = isatty(STDERR_FILENO) == 1;
  if (!req->batch.empty()) {
    bool quiet = false, shown = false;
    for (const twinmaf::CliFlag& f : req->batch_defaults) {
      quiet = quiet || f.name == "quiet";
      shown = shown || f.name == "progress";
    }
    ProgressPrinter progress(tty, "jobs", "jobs/s", (tty && !quiet) || shown);
    return run_batch(*req, progress);
  }
  if (twinmaf::cli::may_use_gpu(*req)) twinmaf::cli::split_exit();
  if (req->config.profile) twinmaf::enable_startup_trace();
  twinmaf::set_ffmpeg_log(req->verbose);
  ProgressPrinter progress(tty, "frames", "fps", (tty && !req->quiet) || req->progress);
  if (progress.enabled()) req->config.progress = [&progress](const twinmaf::Progress& p) { progress.update(p); };
  std::unique_ptr<twinmaf::Scorer> scorer;
  const twinmaf::Status st = twinmaf::run_cli(*req, &scorer);
  progress.finish();
  if (scorer) print_info(*req, *scorer, "");
  if (!st.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", st.message().c_str());
    return st.exit_code();
  }
  print_results(*req, *scorer, "");
  if (!req->quiet) {
    const twinmaf::RunInfo& info = scorer->info();
    std::fprintf(stderr, "%u frames, %.2f fps\n", info.frames, info.seconds > 0 ? info.frames / info.seconds : 0.0);
  }
  if (req->config.profile) {
    scorer.reset();
    twinmaf::mark_startup("scorer destroyed (memory freed)");
    for (const std::string& line : twinmaf::startup_trace()) std::fprintf(stderr, "%s\n", line.c_str());
  }
  return 0;
}

// The library reports errors as Status values; what still escapes as an
// exception (std::bad_alloc, a third-party library) becomes one error line.
int guarded_run(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "twinmaf: error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "twinmaf: error: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "twinmaf: error: internal error (unknown exception)\n");
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int code = guarded_run(argc, argv);
  twinmaf::cli::report_exit(code);
  return code;
}
