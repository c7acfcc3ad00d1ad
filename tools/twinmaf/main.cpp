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
#include "tools/twinmaf/split_exit.h"

namespace {

// Progress on stderr, never in result files. On a terminal: one line, redrawn
// at most 4 times a second and erased at the end. Elsewhere (--progress): a
// line every 2 seconds and one for the last frame.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool tty) : tty_(tty) {}

  void update(const twinmaf::Progress& p) {
    last_ = p;
    if (p.seconds < next_) return;
    next_ = p.seconds + (tty_ ? 0.25 : 2.0);
    print(p);
  }
  void finish() {
    if (tty_) {
      if (drawn_) std::fprintf(stderr, "\r\033[K");
    } else if (last_.frames != printed_) {
      print(last_);
    }
    std::fflush(stderr);
  }

 private:
  void print(const twinmaf::Progress& p) {
    printed_ = p.frames;
    std::string line = "twinmaf: " + std::to_string(p.frames);
    if (p.total > 0)
      line += "/" + std::to_string(p.total) + " frames (" +
              std::to_string(std::min(100u, unsigned(100.0 * p.frames / p.total))) + "%)";
    else
      line += " frames";
    if (p.seconds > 0) {
      const double fps = p.frames / p.seconds;
      char buf[64];
      std::snprintf(buf, sizeof buf, ", %.1f fps", fps);
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
  bool drawn_ = false;
  unsigned printed_ = 0;  // frames of the last line printed
  double next_ = 0;
  twinmaf::Progress last_;
};

void print_stats(const twinmaf::Scorer& scorer, unsigned lane, const char* indent) {
  for (const std::string& metric : scorer.metrics(lane)) {
    auto s = scorer.stats(metric, lane);
    if (!s.ok()) continue;
    std::printf("%s%s: mean %f, stddev %f, p1 %f, p5 %f, p50 %f", indent, metric.c_str(), s->mean, s->stddev, s->p1,
                s->p5, s->p50);
    if (!s->worst.empty()) {
      std::printf(", worst frames");
      for (const auto& [frame, value] : s->worst) std::printf(" %u (%f)", frame, value);
    }
    if (s->non_finite) std::printf(", %u of %u frames not finite (left out)", s->non_finite, s->frames + s->non_finite);
    std::printf("\n");
  }
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
  if (twinmaf::cli::may_use_gpu(*req)) twinmaf::cli::split_exit();
  if (req->config.profile) twinmaf::enable_startup_trace();
  twinmaf::set_ffmpeg_log(req->verbose);
  const bool tty = isatty(STDERR_FILENO) == 1;
  ProgressPrinter progress(tty);
  if ((tty && !req->quiet) || req->progress)
    req->config.progress = [&progress](const twinmaf::Progress& p) { progress.update(p); };
  std::unique_ptr<twinmaf::Scorer> scorer;
  const twinmaf::Status st = twinmaf::run_cli(*req, &scorer);
  progress.finish();
  if (scorer) {
    const twinmaf::RunInfo& info = scorer->info();
    for (const twinmaf::Alignment& a : info.alignment)
      std::fprintf(stderr,
                   "twinmaf: align: %s: offset %+d (reference frame %u = distorted frame %u), luma PSNR %.2f dB "
                   "(%.2f dB without offset)%s\n",
                   a.input.c_str(), a.offset, a.skip_ref, a.skip_dis, a.psnr, a.psnr_zero,
                   a.ambiguous ? "; ambiguous: other offsets match as well" : "");
    for (const twinmaf::ScaledInput& s : info.scaled)
      std::fprintf(stderr, "twinmaf: scale: %s: %dx%d -> %dx%d (%s)\n", s.input.c_str(), s.from_w, s.from_h, s.to_w,
                   s.to_h, s.scaler.c_str());
    for (const std::string& w : info.warnings) std::fprintf(stderr, "twinmaf: warning: %s\n", w.c_str());
    if (req->verbose) std::fprintf(stderr, "twinmaf: cpu kernels: %s\n", info.simd.c_str());
    if (req->verbose)
      for (const auto& [feature, backend] : info.backends)
        std::fprintf(stderr, "twinmaf: %s: %s%s\n", feature.c_str(), backend.c_str(),
                     backend == "cuda" ? (" (" + info.device + ")").c_str() : "");
    if (req->verbose)
      for (const twinmaf::InputDecoding& d : info.decoding)
        std::fprintf(stderr, "twinmaf: decode: %s: %s (%s)\n", d.input.c_str(), d.decoder.c_str(), d.why.c_str());
    for (const std::string& line : info.profile) std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (!st.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", st.message().c_str());
    return st.exit_code();
  }
  if (!req->quiet || req->stats) {
    const unsigned lanes = static_cast<unsigned>(req->distorted.size());
    for (unsigned l = 0; l < lanes; ++l) {
      if (lanes > 1) std::printf("%s\n", req->distorted[l].path.c_str());
      if (!req->quiet)
        for (const twinmaf::ModelSummary& s : scorer->summary(l))
          std::printf("%s%s\n", lanes > 1 ? "  " : "", s.text.c_str());
      if (req->stats) print_stats(*scorer, l, lanes > 1 ? "  " : "");
    }
  }
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
