#include "engine/job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/pooling.h"
#include "model/model.h"

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
  if (job.dis_paths.empty()) TWINMAF_FAIL(kInvalidArgument, "no distorted input");
  if (!job.output_paths.empty() && job.output_paths.size() != job.dis_paths.size())
    TWINMAF_FAIL(kInvalidArgument, "{} distorted inputs but {} outputs: give one -o per -d (or none)",
                 job.dis_paths.size(), job.output_paths.size());
  TWINMAF_ASSIGN_OR_RETURN(auto ref, open_source(job.ref_path, job.raw));
  std::vector<std::unique_ptr<VideoSource>> dis;
  std::vector<VideoSource*> dis_ptrs;
  for (const std::string& path : job.dis_paths) {
    TWINMAF_ASSIGN_OR_RETURN(auto d, open_source(path, job.raw));
    TWINMAF_RETURN_IF_ERROR(check_same_format(*ref, *d));
    dis_ptrs.push_back(d.get());
    dis.push_back(std::move(d));
  }
  const unsigned lanes = static_cast<unsigned>(dis.size());

  Session session(job.session, lanes);
  // libvmaf's order: the models' features first, then --feature requests.
  // Each lane predicts with its own copy of the models (they are bound once).
  std::vector<LoadedModel> models;
  std::vector<std::string> labels;
  if (!job.no_prediction) {
    for (const std::string& text : job.models) {
      TWINMAF_ASSIGN_OR_RETURN(ModelRequest req, parse_model_request(text));
      TWINMAF_ASSIGN_OR_RETURN(LoadedModel model, load_model(req));
      for (const LoadedModel& other : models)
        if (other.main().name() == model.main().name())
          TWINMAF_FAIL(kInvalidArgument, "two models are named '{}'; give each a unique name= in --model",
                       model.main().name());
      TWINMAF_ASSIGN_OR_RETURN(std::vector<FeatureUse> uses, model.bind());
      for (const FeatureUse& use : uses)
        TWINMAF_RETURN_IF_ERROR(session.use_feature_providing(use.provided_name, use.dict));
      labels.push_back(req.label());
      models.push_back(std::move(model));
    }
  }
  for (const FeatureRequest& f : job.features) TWINMAF_RETURN_IF_ERROR(session.use_feature(f.name, f.options));

  TWINMAF_RETURN_IF_ERROR(session.run(*ref, dis_ptrs, job.limits, &result->report));
  const unsigned frames = result->report.frames;
  for (const Session::Registered& r : session.features())
    result->backends.emplace_back(std::string(r.spec->name), r.backend);
  const unsigned subsample = session.config().subsample;
  result->lanes.resize(lanes);
  for (unsigned l = 0; l < lanes; ++l) {
    Collector& c = session.collector(l);
    // libvmaf scores every model's frames, then every collection's outputs.
    for (unsigned i = 0; i < frames; ++i) {
      if (subsample > 1 && i % subsample) continue;
      for (const LoadedModel& m : models) TWINMAF_RETURN_IF_ERROR(m.predict_main(c, i));
      for (const LoadedModel& m : models)
        if (m.is_collection()) TWINMAF_RETURN_IF_ERROR(m.predict_collection(c, i).status());
    }
    const auto mean_of = [&](const std::string& name) -> double {
      for (const auto& col : c.columns())
        if (col.name == name) return pool(col, PoolMethod::kMean, 0, frames - 1, subsample).value_or(NAN);
      return NAN;
    };
    std::vector<PooledScore>& scores = result->lanes[l].scores;
    result->lanes[l].dis_path = job.dis_paths[l];
    for (size_t k = 0; k < models.size(); ++k)
      scores.push_back({labels[k], fmt::format("{}: {:f}", labels[k], mean_of(models[k].main().name()))});
    for (size_t k = 0; k < models.size(); ++k) {
      if (!models[k].is_collection()) continue;
      const std::string& n = models[k].collection_name();
      scores.push_back({labels[k], fmt::format("{}: {:f}, ci.p95: [{:f}, {:f}], stddev: {:f}", labels[k],
                                               mean_of(n + "_bagging"), mean_of(n + "_ci_p95_lo"),
                                               mean_of(n + "_ci_p95_hi"), mean_of(n + "_stddev"))});
    }
    if (models.empty())
      for (const auto& col : c.columns())
        scores.push_back({col.name, fmt::format("{}: {:f}", feature_name_alias(col.name), mean_of(col.name))});
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result->seconds = seconds;

  for (unsigned l = 0; l < lanes && !job.output_paths.empty(); ++l) {
    OutputInfo info;
    info.version = "twinmaf-" TWINMAF_VERSION;
    info.fps = seconds > 0 ? result->report.frames / seconds : 0.0;
    info.width = ref->format().w;
    info.height = ref->format().h;
    info.frames = result->report.frames;
    info.subsample = subsample;
    // Recorded only when a GPU computed something, so CPU files stay
    // byte-identical to libvmaf's.
    if (std::any_of(result->backends.begin(), result->backends.end(), [](const auto& b) { return b.second != "cpu"; }))
      info.backends = result->backends;
    info.precision = job.precision;
    TWINMAF_RETURN_IF_ERROR(write_output(job.output_paths[l], job.output_format, session.collector(l), info));
  }
  return ok_status();
}

}  // namespace twinmaf
