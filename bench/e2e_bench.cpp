// twinmaf_bench: end-to-end throughput of a scoring job. Takes the twinmaf
// command line (inputs, --feature/--model, --threads, ...) plus --repeat N, runs
// the whole job N times (inputs are read each time: from the page cache after
// the first run) and prints fps and ms/frame, best and median.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/twinmaf/args.h"

int main(int argc, char** argv) {
  std::string repeat = "3";
  twinmaf::CliExtras extras;
  extras.program = "twinmaf_bench";
  extras.options.push_back({"--repeat", &repeat, "runs to time (default 3)"});
  auto req = twinmaf::parse_cli(argc, argv, extras);
  if (!req.ok()) {
    std::fprintf(stderr, "twinmaf_bench: error: %s\n", req.status().message().c_str());
    return 2;
  }
  if (!req->help.empty()) {
    std::printf("%s", req->help.c_str());
    return 0;
  }
  const int n = std::max(1, std::atoi(repeat.c_str()));
  twinmaf::CliRequest job = *req;
  job.outputs.clear();
  std::vector<double> fps, total_fps;  // frame loop only; whole job (setup, prediction, output too)
  unsigned frames = 0;
  for (int i = 0; i < n; ++i) {
    std::unique_ptr<twinmaf::Scorer> scorer;
    const twinmaf::Status st = twinmaf::run_cli(job, &scorer);
    if (!st.ok()) {
      std::fprintf(stderr, "twinmaf_bench: error: %s\n", st.message().c_str());
      return st.exit_code();
    }
    const twinmaf::RunInfo& r = scorer->info();
    frames = r.frames;
    fps.push_back(r.frames / r.loop_seconds);
    total_fps.push_back(r.frames / r.seconds);
  }
  std::vector<double> sorted = fps;
  std::sort(sorted.begin(), sorted.end());
  const double best = sorted.back(), median = sorted[sorted.size() / 2];
  std::string what;
  for (const auto& f : job.config.features) what += (what.empty() ? "" : "+") + f;
  for (const auto& m : job.config.models) what += (what.empty() ? "" : "+") + m;
  std::sort(total_fps.begin(), total_fps.end());
  std::printf("%s | threads %u | %u frames | best %.1f fps (%.3f ms/frame) | median %.1f fps (%.3f ms/frame) | "
              "whole job best %.1f fps | %d runs\n",
              what.c_str(), job.config.threads, frames, best, 1000.0 / best, median, 1000.0 / median,
              total_fps.back(), n);
  return 0;
}
