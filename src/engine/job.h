// A whole scoring job, as the CLI and the Python API describe it: inputs,
// features, models, limits and outputs. execute() opens the inputs, runs the
// session, predicts the models, and writes the result file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/options.h"
#include "engine/session.h"
#include "io/source.h"
#include "output/writer.h"

namespace twinmaf {

struct FeatureRequest {
  std::string name;
  OptionDict options;
};

// "name=key=value:key=value" (libvmaf's --feature syntax). Numeric values are
// normalised as libvmaf's dictionary does.
Result<FeatureRequest> parse_feature_request(std::string_view text);

// One reference against one or more distorted inputs: the reference is read
// (and uploaded) once; each distorted input gets its own result and file.
struct ScoreJob {
  std::string ref_path;
  std::vector<std::string> dis_paths;
  std::optional<RawParams> raw;
  std::vector<FeatureRequest> features;
  std::vector<std::string> models;  // --model texts ("version=vmaf_v0.6.1:name=vmaf")
  bool no_prediction = false;
  SessionConfig session;
  RunLimits limits;
  std::vector<std::string> output_paths;  // none, or one per distorted input
  OutputFormat output_format = OutputFormat::kXml;
  Precision precision;
};

struct PooledScore {
  std::string label;  // model version or path, as libvmaf prints it
  std::string text;   // "label: 12.345678" (collections: with ci and stddev)
};

struct LaneResult {
  std::string dis_path;
  std::vector<PooledScore> scores;
};

struct JobResult {
  RunReport report;
  std::vector<std::pair<std::string, std::string>> backends;  // feature -> "cpu" / "cuda"
  std::vector<LaneResult> lanes;  // per distorted input
  double seconds = 0;
};

Status execute(const ScoreJob& job, JobResult* result);

}  // namespace twinmaf
