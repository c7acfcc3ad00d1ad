#include "engine/job.h"

#include <chrono>

namespace twinmaf {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<FeatureRequest> parse_feature_request(std::string_view text) {
  FeatureRequest req;
  const size_t eq = text.find('=');
  req.name = std::string(text.substr(0, eq));
  if (req.name.empty()) TWINMAF_FAIL(kInvalidArgument, "--feature '{}': missing feature name", text);
  if (eq == std::string_view::npos) return req;
  for (std::string_view kv : split(text.substr(eq + 1), ':')) {
    const size_t e = kv.find('=');
    if (e == std::string_view::npos || e == 0)
      TWINMAF_FAIL(kInvalidArgument, "--feature {}: bad option string '{}' (want key=value)", req.name, kv);
    req.options.set(kv.substr(0, e), kv.substr(e + 1));
  }
  return req;
}

Status execute(const ScoreJob& job, JobResult* result) {
  const auto t0 = std::chrono::steady_clock::now();
  TWINMAF_ASSIGN_OR_RETURN(auto ref, open_source(job.ref_path, job.raw));
  TWINMAF_ASSIGN_OR_RETURN(auto dis, open_source(job.dis_path, job.raw));
  TWINMAF_RETURN_IF_ERROR(check_same_format(*ref, *dis));

  Session session(job.session);
  for (const FeatureRequest& f : job.features) TWINMAF_RETURN_IF_ERROR(session.use_feature(f.name, f.options));
  if (!job.no_prediction && !job.models.empty())
    TWINMAF_FAIL(kUnsupported, "models are not available in this build yet; use -n with --feature");

  TWINMAF_RETURN_IF_ERROR(session.run(*ref, *dis, job.limits, &result->report));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result->seconds = seconds;

  if (!job.output_path.empty()) {
    OutputInfo info;
    info.version = "twinmaf-" TWINMAF_VERSION;
    info.fps = seconds > 0 ? result->report.frames / seconds : 0.0;
    info.width = ref->format().w;
    info.height = ref->format().h;
    info.frames = result->report.frames;
    info.subsample = session.config().subsample;
    info.precision = job.precision;
    TWINMAF_RETURN_IF_ERROR(write_output(job.output_path, job.output_format, session.collector(), info));
  }
  return ok_status();
}

}  // namespace twinmaf
