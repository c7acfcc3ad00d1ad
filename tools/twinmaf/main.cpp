// twinmaf: libvmaf's `vmaf` command line, drop-in, plus --precision.
// Argument parsing only; everything else is the library's (engine/job.h).
#include <cstdio>

#include "tools/twinmaf/args.h"

int main(int argc, char** argv) {
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
    std::fprintf(stderr, "twinmaf %s\n", TWINMAF_VERSION);
    return 0;
  }
  twinmaf::JobResult result;
  const twinmaf::Status st = twinmaf::execute(req->job, &result);
  for (const std::string& w : result.report.warnings) std::fprintf(stderr, "twinmaf: warning: %s\n", w.c_str());
  if (req->verbose) {
    for (const auto& [feature, backend] : result.backends)
      std::fprintf(stderr, "twinmaf: %s: %s%s\n", feature.c_str(), backend.c_str(),
                   backend == "cuda" ? (" (" + result.report.device + ")").c_str() : "");
  }
  for (const std::string& line : result.report.profile) std::fprintf(stderr, "%s\n", line.c_str());
  if (!st.ok()) {
    std::fprintf(stderr, "twinmaf: error: %s\n", st.message().c_str());
    return st.exit_code();
  }
  if (!req->quiet) {
    for (const auto& lane : result.lanes) {
      const bool several = result.lanes.size() > 1;
      if (several) std::printf("%s\n", lane.dis_path.c_str());
      for (const auto& s : lane.scores) std::printf("%s%s\n", several ? "  " : "", s.text.c_str());
    }
    std::fprintf(stderr, "%u frames, %.2f fps\n", result.report.frames,
                 result.seconds > 0 ? result.report.frames / result.seconds : 0.0);
  }
  return 0;
}
