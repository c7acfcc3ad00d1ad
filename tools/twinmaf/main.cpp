// twinmaf: libvmaf's `vmaf` command line, drop-in, plus twinmaf's flags.
// Argument parsing and printing only; everything else is the library's
// public API (twinmaf/twinmaf.h).
#include <cstdio>
#include <exception>
#include <new>

#include "tools/twinmaf/args.h"

namespace {

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
  std::unique_ptr<twinmaf::Scorer> scorer;
  const twinmaf::Status st = twinmaf::run_cli(*req, &scorer);
  if (scorer) {
    const twinmaf::RunInfo& info = scorer->info();
    for (const std::string& w : info.warnings) std::fprintf(stderr, "twinmaf: warning: %s\n", w.c_str());
    if (req->verbose) std::fprintf(stderr, "twinmaf: cpu kernels: %s\n", info.simd.c_str());
    if (req->verbose)
      for (const auto& [feature, backend] : info.backends)
        std::fprintf(stderr, "twinmaf: %s: %s%s\n", feature.c_str(), backend.c_str(),
                     backend == "cuda" ? (" (" + info.device + ")").c_str() : "");
    for (const std::string& line : info.profile) std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (!st.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", st.message().c_str());
    return st.exit_code();
  }
  if (!req->quiet) {
    const unsigned lanes = static_cast<unsigned>(req->distorted.size());
    for (unsigned l = 0; l < lanes; ++l) {
      if (lanes > 1) std::printf("%s\n", req->distorted[l].path.c_str());
      for (const twinmaf::ModelSummary& s : scorer->summary(l)) std::printf("%s%s\n", lanes > 1 ? "  " : "", s.text.c_str());
    }
    const twinmaf::RunInfo& info = scorer->info();
    std::fprintf(stderr, "%u frames, %.2f fps\n", info.frames, info.seconds > 0 ? info.frames / info.seconds : 0.0);
  }
  return 0;
}

}  // namespace

// The library reports errors as Status values; what still escapes as an
// exception (std::bad_alloc, a third-party library) becomes one error line.
int main(int argc, char** argv) {
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
