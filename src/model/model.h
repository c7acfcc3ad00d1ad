// VMAF models: JSON model files, nu-SVR prediction, score transforms, clipping,
// chroma-from-luma correction and bootstrap collections, exact to libvmaf
// f85a8536 (src/model.c, src/read_json_model.c, src/predict.c, src/svm.cpp).
//
// What a model is (one "model_dict" of a model JSON file):
//   n features (feature_names: provided names such as
//   "VMAF_integer_feature_adm2_score", each with an option dictionary from
//   feature_opts_dicts), slopes/intercepts (element 0 for the output, 1..n per
//   feature), norm_type, an SVR (libsvm text, model/svm.h), score_clip,
//   score_transform and chroma_correction_parameter. A collection file
//   ("0", "1", ... keys, each {"model_dict": ...}) is a bootstrap model: key
//   "0" is the main model, scored under the configured name, keys 1..N the
//   members, scored under "<name>_0001" ... "<name>_NNNN".
//
// Prediction of frame i (libvmaf vmaf_predict_score_at_index), all in double:
//   1. x_k = value of feature k in the collector at i, under its collector
//      name (bind()); normalised x_k = slope_k * x_k + intercept_k
//      (linear_rescale) or unchanged (none).
//   2. chroma correction (models with chroma_correction_parameter c): the
//      feature whose name contains "speed_chroma" is replaced, when its
//      de-normalised value (x_k - intercept_k) / slope_k is exactly 0.0, by
//      the normalised (-c * a) + c, a = the de-normalised "adm3" feature.
//   3. y = svm.predict(x) (model/svm.h gives the summation order).
//   4. y = (y - intercept_0) / slope_0 (linear_rescale; none: unchanged).
//   5. transform, if enabled by the file ("enabled": true) or by the load
//      flag kModelFlagEnableTransform (only where the object exists), unless
//      kModelFlagDisableTransform is passed at prediction: polynomial
//      ((0 + p0) + p1*y) + (p2*y)*y over the p's that are not null (none:
//      identity); then the piecewise-linear knots; then out_lte_in
//      (min with y) / out_gte_in (max with y).
//   6. clip to score_clip unless the model was loaded with
//      kModelFlagDisableClip or kModelFlagDisableClip is passed.
// Bootstrap statistics of frame i (libvmaf vmaf_bootstrap_predict_score_at_index),
// over the members' scores s_j without transform and clip (steps 1-4):
//   mean = (sum s_j) / N in member order; stddev = sqrt(sum (s_j - mean)^2 / N);
//   sorted ascending, percentile(p) at pos = p * (N - 1) / 100 interpolates
//   s[floor] * (ceil - pos) + s[ceil] * (pos - floor); lo = 2.5, hi = 97.5.
//   bagging, lo, hi then go through member 1's transform and clip (T), and
//   stddev is multiplied by (T(mean + 0.01) - T(mean - 0.01)) / (2.0 * 0.01).
//   Collector order per frame: <name>_0001 .. <name>_NNNN (each with its own
//   transform/clip), <name>_bagging, <name>_stddev, <name>_ci_p95_lo,
//   <name>_ci_p95_hi.
//
// Using a model (what the engine does):
//   auto req = parse_model_request("version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0");
//   auto m = load_model(*req, find);   // LoadedModel::from_version/from_file +
//                                      // overload("adm", dict) per overload
//   auto uses = m->bind(find);         // provider lookup; the extractors to
//                                      // register, in libvmaf's order
// (`find` is the feature registry's FindProvider, core/options.h.)
//   ... run the extractors into a Collector ...
//   m->predict_main(collector, i);     // for every model, then
//   m->predict_collection(collector, i);  // for every collection
// libvmaf's CLI scores all models before all collections, which fixes the
// collector's (and so the output's) column order.
//
// Errors (bad files, unknown versions, missing providers, missing frames) are
// one-line Status messages naming the model; nothing throws.
//
// Deviations (only where libvmaf reads undefined or garbage values, or skips
// damage silently): array lengths must match the feature count, knots must be
// increasing, a chroma-corrected model needs exactly one "adm3" and one
// "speed_chroma" feature and a non-zero parameter, SV indices must lie in
// 1..n and increase, duplicate keys in a model_dict are rejected.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "core/options.h"
#include "model/svm.h"

namespace twinmaf {

namespace detail {
struct JsonNode;
}  // namespace detail

// libvmaf VmafModelFlags. kModelFlagDisableClip and kModelFlagEnableTransform
// act at load time (ModelConfig::flags); kModelFlagDisableClip and
// kModelFlagDisableTransform act at prediction (Model::finish_score).
inline constexpr uint32_t kModelFlagDisableClip = 1;
inline constexpr uint32_t kModelFlagEnableTransform = 2;
inline constexpr uint32_t kModelFlagDisableTransform = 4;

// libvmaf's limits (read_json_model.c).
inline constexpr size_t kMaxModelFeatures = 64;
inline constexpr size_t kMaxModelKnots = 10;
// Model files above this are refused (LoadedModel::from_file).
inline constexpr uintmax_t kMaxModelFileBytes = 32u << 20;

struct ModelConfig {
  std::string name = "vmaf";  // collector key of the score (--model name=)
  uint32_t flags = 0;         // kModelFlagDisableClip | kModelFlagEnableTransform
};

enum class ModelType : uint8_t {
  kUnknown,  // no model_type key (allowed for a single model)
  kSvmNuSvr,                  // LIBSVMNUSVR
  kBootstrapSvmNuSvr,         // BOOTSTRAP_LIBSVMNUSVR
  kResidueBootstrapSvmNuSvr,  // RESIDUEBOOTSTRAP_LIBSVMNUSVR
};

enum class NormType : uint8_t { kNone, kLinearRescale };

struct ModelFeature {
  std::string name;  // provided name, e.g. "VMAF_integer_feature_adm2_score"
  double slope = 0.0;
  double intercept = 0.0;
  OptionDict options;          // normalised option texts (OptionDict::set)
  std::string collector_name;  // empty until bound
};

struct ScoreTransform {
  bool present = false;  // the file has a score_transform object
  bool enabled = false;
  std::optional<double> p0, p1, p2;
  bool knots_enabled = false;  // "knots": [...] (even empty: then identity)
  std::vector<std::pair<double, double>> knots;  // (x, y)
  bool out_lte_in = false;
  bool out_gte_in = false;
};

// The extractor instance a model feature needs.
struct FeatureUse {
  std::string provided_name;
  std::string_view extractor;  // the providing extractor's name
  OptionDict dict;   // what the extractor is created with
  Options options;   // dict parsed against the extractor's option table
  std::string collector_name;  // options.feature_name(provided_name)
};

// Resolves a model feature: the extractor `find` names for it, its options
// parsed from the feature's dictionary, the collector name. `model_label`
// prefixes errors.
Result<FeatureUse> resolve_model_feature(const ModelFeature& feature, std::string_view model_label,
                                         FindProvider find);

// Maps a model feature to the collector name its values are stored under.
using FeatureNamer = std::function<Result<std::string>(const ModelFeature&)>;

class Model {
 public:
  // Parses one model_dict object's JSON text (the whole file when it holds a
  // top-level "model_dict"). Mainly for tests; LoadedModel reads files.
  static Result<Model> from_json(std::string_view json, const ModelConfig& cfg,
                                 std::string_view label);

  const std::string& name() const { return name_; }
  ModelType type() const { return type_; }
  NormType norm_type() const { return norm_type_; }
  const std::vector<ModelFeature>& features() const { return features_; }
  double slope() const { return slope_; }
  double intercept() const { return intercept_; }
  bool clip_enabled() const { return clip_enabled_; }
  double clip_min() const { return clip_min_; }
  double clip_max() const { return clip_max_; }
  const ScoreTransform& transform() const { return transform_; }
  std::optional<double> chroma_correction() const { return chroma_correction_; }
  const SvmModel& svm() const { return svm_; }

  // Merges (overwrites) dict into the options of every feature whose
  // providing extractor (`find`) is named extractor_name (libvmaf
  // vmaf_model_feature_overload). Dict texts are taken as given (build it
  // with OptionDict::set). Features without a provider are skipped.
  void overload(std::string_view extractor_name, const OptionDict& dict, FindProvider find);

  // Fixes each feature's collector name. bound() is false until then.
  Status bind(const FeatureNamer& namer);
  bool bound() const { return bound_; }

  // Steps 1-4 for frame `index` (needs bind()).
  Result<double> raw_score(const Collector& collector, unsigned index) const;
  // Steps 5-6 with prediction flags (kModelFlagDisableClip/DisableTransform).
  double finish_score(double raw, uint32_t flags) const;
  double apply_transform(double y, uint32_t flags) const;
  double apply_clip(double y, uint32_t flags) const;
  // libvmaf vmaf_score_at_index: the stored value under name() if the
  // collector has one at index, else the prediction, appended under name().
  Result<double> predict(Collector& collector, unsigned index) const;

 private:
  friend class LoadedModel;
  static Result<Model> from_node(const detail::JsonNode& model_dict, const ModelConfig& cfg,
                                 std::string label);

  std::string name_;
  std::string label_;  // "model <version or path>[ member k]" for errors
  ModelType type_ = ModelType::kUnknown;
  NormType norm_type_ = NormType::kNone;
  double slope_ = 0.0;
  double intercept_ = 0.0;
  std::vector<ModelFeature> features_;
  bool clip_enabled_ = false;
  double clip_min_ = 0.0;
  double clip_max_ = 0.0;
  ScoreTransform transform_;
  std::optional<double> chroma_correction_;
  int chroma_guiding_ = -1;  // feature index containing "adm3"
  int chroma_guided_ = -1;   // feature index containing "speed_chroma"
  SvmModel svm_;
  bool bound_ = false;
};

struct BootstrapScore {
  double bagging = 0.0;
  double stddev = 0.0;
  double ci_p95_lo = 0.0;
  double ci_p95_hi = 0.0;
};

// Bootstrap statistics of member scores (untransformed, unclipped, in member
// order), finished with `ref`'s transform and clip (libvmaf: member 1).
BootstrapScore bootstrap_statistics(std::vector<double> scores, const Model& ref);

// What one --model loads: a model, or a bootstrap collection.
class LoadedModel {
 public:
  // Built-in model by version ("vmaf_v0.6.1", "vmaf_b_v0.6.3", ...).
  static Result<LoadedModel> from_version(std::string_view version, const ModelConfig& cfg);
  // Model file; `.pkl` is refused with libvmaf's hint.
  static Result<LoadedModel> from_file(const std::string& path, const ModelConfig& cfg);
  // JSON text; a top-level "model_dict" makes a model, else "0", "1", ...
  // make a collection (libvmaf tries the model first, then the collection).
  static Result<LoadedModel> from_json(std::string_view json, const ModelConfig& cfg,
                                       std::string_view label);

  const std::string& label() const { return label_; }
  // The model scored under cfg.name (key "0" of a collection).
  const Model& main() const { return main_; }
  bool is_collection() const { return !members_.empty(); }
  // Members 1..N (named "<name>_0001"...); empty for a single model.
  const std::vector<Model>& members() const { return members_; }
  // "<name>": prefix of the _bagging/_stddev/_ci_p95_lo/_ci_p95_hi columns.
  const std::string& collection_name() const { return collection_name_; }

  // Every model feature (provided name + option dictionary), in libvmaf's
  // registration order: a collection's members first, then the main model.
  // This is what the engine needs to register extractors (bind() does the
  // registry lookup and fails on the first feature nothing provides).
  std::vector<const ModelFeature*> features() const;

  // Model::overload on the main model and every member.
  void overload(std::string_view extractor_name, const OptionDict& dict, FindProvider find);

  // Resolves every feature through `find` and binds the models. The
  // result lists one FeatureUse per model feature in libvmaf's registration
  // order (a collection's members first, then the main model; duplicates
  // left to the engine's dedup). The first missing provider is an error:
  // "model m: no feature extractor provides 'VMAF_feature_vif_scale0_score'".
  Result<std::vector<FeatureUse>> bind(FindProvider find);
  // Binds with a caller-supplied naming (tests, tools replaying scores).
  Status bind(const FeatureNamer& namer);

  // Main model score of frame index (Model::predict).
  Status predict_main(Collector& collector, unsigned index) const;
  // Collection outputs of frame index (no-op for a single model).
  Result<BootstrapScore> predict_collection(Collector& collector, unsigned index) const;

 private:
  std::string label_;
  Model main_;
  std::vector<Model> members_;
  std::string collection_name_;
};

// One --model argument, parsed as libvmaf's CLI does (tools/cli_parse.c):
// ':'-separated key=value items: path=, version=, name=, disable_clip[=true],
// enable_transform[=true] (any value other than "true" leaves the flag off),
// and <extractor>.<option>=<value> overloads (one option each, value
// normalised with OptionDict::set, applied in order). A repeated key wins
// last; with both version and path, the version is loaded.
struct ModelRequest {
  std::string version;
  std::string path;
  ModelConfig config;
  std::vector<std::pair<std::string, OptionDict>> overloads;  // (extractor, option)
  // What libvmaf prints for the model: the version, else the path.
  const std::string& label() const { return version.empty() ? path : version; }
};
Result<ModelRequest> parse_model_request(std::string_view text);
// Loads the request's model (LoadedModel::from_version or from_file) and
// applies its overloads.
Result<LoadedModel> load_model(const ModelRequest& request, FindProvider find);

}  // namespace twinmaf
