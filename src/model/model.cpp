// Model loading (JSON -> Model) and prediction; the contract is in model.h.
#include "model/model.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/builtin_models.h"
#include "model/json_tree.h"

namespace twinmaf {

using detail::JsonNode;
using Kind = detail::JsonNode::Kind;

namespace {

std::string_view kind_name(const JsonNode& n) { return detail::json_kind_name(n.kind); }

// Shortens user-controlled text quoted in an error message.
std::string quote(std::string_view s) {
  std::string out(s.substr(0, 64));
  if (s.size() > 64) out += "...";
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return out;
}

// An array of exactly `count` numbers (count 0: any length).
Status read_numbers(const JsonNode& n, std::string_view label, std::string_view key, size_t count,
                    std::string_view what, std::vector<double>& out) {
  if (!n.is(Kind::kArray))
    TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected an array of numbers", label, key,
                 kind_name(n));
  if (count && n.items.size() != count)
    TWINMAF_FAIL(kInvalidArgument, "{}: {} has {} entries, expected {} ({})", label, key,
                 n.items.size(), count, what);
  out.clear();
  for (size_t i = 0; i < n.items.size(); ++i) {
    if (!n.items[i].is(Kind::kNumber))
      TWINMAF_FAIL(kInvalidArgument, "{}: {}[{}] is {}, expected a number", label, key, i,
                   kind_name(n.items[i]));
    out.push_back(n.items[i].number);
  }
  return ok_status();
}

Result<double> read_number(const JsonNode& n, std::string_view label, std::string_view key) {
  if (!n.is(Kind::kNumber))
    TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected a number", label, key, kind_name(n));
  return n.number;
}

Result<std::string> read_string(const JsonNode& n, std::string_view label, std::string_view key) {
  if (!n.is(Kind::kString))
    TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected a string", label, key, kind_name(n));
  return n.text;
}

Status parse_transform(const JsonNode& n, std::string_view label, ScoreTransform& t) {
  if (!n.is(Kind::kObject))
    TWINMAF_FAIL(kInvalidArgument, "{}: score_transform is {}, expected an object", label,
                 kind_name(n));
  t = ScoreTransform{};
  t.present = true;
  // Keys in file order, later ones winning, unknown ones ignored (libvmaf).
  for (size_t i = 0; i < n.items.size(); ++i) {
    const std::string& key = n.keys[i];
    const JsonNode& v = n.items[i];
    const std::string where = "score_transform." + key;
    if (key == "enabled") {
      if (!v.is(Kind::kBool))
        TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected true or false", label, where,
                     kind_name(v));
      t.enabled = v.boolean;
    } else if (key == "p0" || key == "p1" || key == "p2") {
      std::optional<double>& p = key == "p0" ? t.p0 : key == "p1" ? t.p1 : t.p2;
      if (v.is(Kind::kNull)) {
        p.reset();
      } else {
        TWINMAF_ASSIGN_OR_RETURN(const double value, read_number(v, label, where));
        p = value;
      }
    } else if (key == "knots") {
      t.knots.clear();
      if (v.is(Kind::kNull)) {
        t.knots_enabled = false;
        continue;
      }
      if (!v.is(Kind::kArray))
        TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected an array of [x, y] or null", label,
                     where, kind_name(v));
      if (v.items.size() > kMaxModelKnots)
        TWINMAF_FAIL(kInvalidArgument, "{}: {} has {} knots, at most {} are supported", label,
                     where, v.items.size(), kMaxModelKnots);
      for (size_t k = 0; k < v.items.size(); ++k) {
        std::vector<double> xy;
        TWINMAF_RETURN_IF_ERROR(read_numbers(v.items[k], label, fmt::format("{}[{}]", where, k), 2,
                                             "x and y", xy));
        t.knots.emplace_back(xy[0], xy[1]);
      }
      // libvmaf checks this per prediction and returns garbage when it fails.
      for (size_t k = 0; t.knots.size() > 1 && k + 1 < t.knots.size(); ++k)
        if (!(t.knots[k].first < t.knots[k + 1].first && t.knots[k].second <= t.knots[k + 1].second))
          TWINMAF_FAIL(kInvalidArgument,
                       "{}: {}: knot {} must have a larger x and no smaller y than knot {}", label,
                       where, k + 1, k);
      t.knots_enabled = true;
    } else if (key == "out_lte_in" || key == "out_gte_in") {
      TWINMAF_ASSIGN_OR_RETURN(const std::string s, read_string(v, label, where));
      if (s == "true") (key == "out_lte_in" ? t.out_lte_in : t.out_gte_in) = true;
    }
  }
  return ok_status();
}

Status parse_options(const JsonNode& n, std::string_view label, size_t index, OptionDict& dict) {
  const std::string where = fmt::format("feature_opts_dicts[{}]", index);
  if (!n.is(Kind::kObject))
    TWINMAF_FAIL(kInvalidArgument, "{}: {} is {}, expected an object", label, where, kind_name(n));
  for (size_t i = 0; i < n.items.size(); ++i) {
    const std::string& key = n.keys[i];
    const JsonNode& v = n.items[i];
    std::string text;
    switch (v.kind) {
      // libvmaf's dictionary normalises numeric text: strtof, then "%g".
      case Kind::kNumber: text = normalize_option_text(v.text); break;
      case Kind::kBool: text = v.boolean ? "true" : "false"; break;
      case Kind::kString: text = v.text; break;
      default:
        TWINMAF_FAIL(kInvalidArgument, "{}: {}.{} is {}, expected a number, boolean or string",
                     label, where, quote(key), kind_name(v));
    }
    // Set without overwrite: a repeated key must repeat the value.
    if (const std::string* old = dict.find(key)) {
      if (*old != text)
        TWINMAF_FAIL(kInvalidArgument, "{}: {}: option '{}' given twice ('{}', '{}')", label,
                     where, quote(key), quote(*old), quote(text));
      continue;
    }
    dict.set_raw(key, text);
  }
  return ok_status();
}

// The chroma correction's features: the one whose name contains "adm3"
// (guiding) and the one containing "speed_chroma" (guided).
Status chroma_features(const std::vector<ModelFeature>& features, const std::string& label, int& guiding,
                       int& guided) {
  for (size_t i = 0; i < features.size(); ++i) {
    const std::string& name = features[i].name;
    for (auto [sub, idx] : {std::pair<const char*, int*>{"adm3", &guiding},
                            std::pair<const char*, int*>{"speed_chroma", &guided}}) {
      if (name.find(sub) == std::string::npos) continue;
      if (*idx >= 0)
        TWINMAF_FAIL(kInvalidArgument, "{}: chroma correction: more than one feature name contains '{}'", label,
                     sub);
      *idx = static_cast<int>(i);
    }
  }
  if (guiding < 0 || guided < 0 || guiding == guided)
    TWINMAF_FAIL(kInvalidArgument,
                 "{}: chroma correction needs one feature containing 'adm3' and another "
                 "containing 'speed_chroma'",
                 label);
  return ok_status();
}

}  // namespace

Result<Model> Model::from_node(const JsonNode& d, const ModelConfig& cfg, std::string label) {
  if (!d.is(Kind::kObject))
    TWINMAF_FAIL(kInvalidArgument, "{}: model_dict is {}, expected an object", label, kind_name(d));
  for (size_t i = 0; i < d.keys.size(); ++i)
    for (size_t j = i + 1; j < d.keys.size(); ++j)
      if (d.keys[i] == d.keys[j])
        TWINMAF_FAIL(kInvalidArgument, "{}: model_dict has the key '{}' twice", label,
                     quote(d.keys[i]));

  Model m;
  m.name_ = cfg.name;
  m.label_ = label;

  if (const JsonNode* n = d.find("model_type")) {
    TWINMAF_ASSIGN_OR_RETURN(const std::string type, read_string(*n, label, "model_type"));
    if (type == "LIBSVMNUSVR") m.type_ = ModelType::kSvmNuSvr;
    else if (type == "BOOTSTRAP_LIBSVMNUSVR") m.type_ = ModelType::kBootstrapSvmNuSvr;
    else if (type == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") m.type_ = ModelType::kResidueBootstrapSvmNuSvr;
    else
      TWINMAF_FAIL(kInvalidArgument,
                   "{}: unknown model_type '{}' (LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR, "
                   "RESIDUEBOOTSTRAP_LIBSVMNUSVR)",
                   label, quote(type));
  }

  const JsonNode* norm = d.find("norm_type");
  if (!norm) TWINMAF_FAIL(kInvalidArgument, "{}: model_dict has no norm_type", label);
  TWINMAF_ASSIGN_OR_RETURN(const std::string norm_type, read_string(*norm, label, "norm_type"));
  if (norm_type == "linear_rescale") m.norm_type_ = NormType::kLinearRescale;
  else if (norm_type == "none") m.norm_type_ = NormType::kNone;
  else
    TWINMAF_FAIL(kInvalidArgument, "{}: unknown norm_type '{}' (linear_rescale, none)", label,
                 quote(norm_type));

  const JsonNode* names = d.find("feature_names");
  if (!names) TWINMAF_FAIL(kInvalidArgument, "{}: model_dict has no feature_names", label);
  if (!names->is(Kind::kArray))
    TWINMAF_FAIL(kInvalidArgument, "{}: feature_names is {}, expected an array of strings", label,
                 kind_name(*names));
  if (names->items.empty()) TWINMAF_FAIL(kInvalidArgument, "{}: feature_names is empty", label);
  if (names->items.size() > kMaxModelFeatures)
    TWINMAF_FAIL(kInvalidArgument, "{}: {} features, at most {} are supported", label,
                 names->items.size(), kMaxModelFeatures);
  for (size_t i = 0; i < names->items.size(); ++i) {
    TWINMAF_ASSIGN_OR_RETURN(std::string name, read_string(names->items[i], label,
                                                           fmt::format("feature_names[{}]", i)));
    m.features_.push_back(ModelFeature{.name = std::move(name)});
  }
  const size_t n = m.features_.size();

  const JsonNode* slopes = d.find("slopes");
  const JsonNode* intercepts = d.find("intercepts");
  if (m.norm_type_ == NormType::kLinearRescale && (!slopes || !intercepts))
    TWINMAF_FAIL(kInvalidArgument, "{}: norm_type linear_rescale needs slopes and intercepts",
                 label);
  const std::string what = fmt::format("output + {} features", n);
  std::vector<double> values;
  if (slopes) {
    TWINMAF_RETURN_IF_ERROR(read_numbers(*slopes, label, "slopes", n + 1, what, values));
    m.slope_ = values[0];
    for (size_t i = 0; i < n; ++i) m.features_[i].slope = values[i + 1];
  }
  if (intercepts) {
    TWINMAF_RETURN_IF_ERROR(read_numbers(*intercepts, label, "intercepts", n + 1, what, values));
    m.intercept_ = values[0];
    for (size_t i = 0; i < n; ++i) m.features_[i].intercept = values[i + 1];
  }

  if (const JsonNode* opts = d.find("feature_opts_dicts")) {
    if (!opts->is(Kind::kArray))
      TWINMAF_FAIL(kInvalidArgument, "{}: feature_opts_dicts is {}, expected an array", label,
                   kind_name(*opts));
    if (opts->items.size() != n)
      TWINMAF_FAIL(kInvalidArgument, "{}: feature_opts_dicts has {} entries for {} features",
                   label, opts->items.size(), n);
    for (size_t i = 0; i < n; ++i)
      TWINMAF_RETURN_IF_ERROR(parse_options(opts->items[i], label, i, m.features_[i].options));
  }

  if (const JsonNode* clip = d.find("score_clip")) {
    TWINMAF_RETURN_IF_ERROR(read_numbers(*clip, label, "score_clip", 2, "min and max", values));
    if (!(cfg.flags & kModelFlagDisableClip)) {
      m.clip_enabled_ = true;
      m.clip_min_ = values[0];
      m.clip_max_ = values[1];
    }
  }

  if (const JsonNode* t = d.find("score_transform")) {
    TWINMAF_RETURN_IF_ERROR(parse_transform(*t, label, m.transform_));
    // The load flag turns a present transform on; it cannot create one.
    if (cfg.flags & kModelFlagEnableTransform) m.transform_.enabled = true;
  }

  if (const JsonNode* c = d.find("chroma_correction_parameter")) {
    TWINMAF_ASSIGN_OR_RETURN(const double value,
                             read_number(*c, label, "chroma_correction_parameter"));
    // libvmaf skips the whole prediction (writes no score) for 0.
    if (value == 0.0)
      TWINMAF_FAIL(kInvalidArgument, "{}: chroma_correction_parameter 0 is not supported", label);
    TWINMAF_RETURN_IF_ERROR(chroma_features(m.features_, label, m.chroma_guiding_, m.chroma_guided_));
    m.chroma_correction_ = value;
  }

  const JsonNode* svm = d.find("model");
  if (!svm) TWINMAF_FAIL(kInvalidArgument, "{}: model_dict has no model (SVM text)", label);
  TWINMAF_ASSIGN_OR_RETURN(const std::string svm_text, read_string(*svm, label, "model"));
  auto parsed = SvmModel::parse(svm_text);
  if (!parsed.ok())
    return Status(parsed.status().code(), fmt::format("{}: {}", label, parsed.status().message()));
  m.svm_ = std::move(parsed).value();
  if (m.svm_.max_index() > static_cast<int>(n))
    TWINMAF_FAIL(kInvalidArgument, "{}: the SVM uses feature index {} but the model has {} features",
                 label, m.svm_.max_index(), n);
  return m;
}

Result<Model> Model::from_json(std::string_view json, const ModelConfig& cfg,
                               std::string_view label) {
  const std::string prefix = fmt::format("model {}", label);
  auto root = detail::parse_json(json);
  if (!root.ok()) return Status(root.status().code(), prefix + ": " + root.status().message());
  const JsonNode* dict = root->is(Kind::kObject) ? root->find("model_dict") : nullptr;
  return from_node(dict ? *dict : *root, cfg, prefix);
}

void Model::overload(std::string_view extractor_name, const OptionDict& dict, FindProvider find) {
  for (ModelFeature& f : features_) {
    const std::optional<ExtractorRef> provider = find(f.name);
    if (!provider || provider->name != extractor_name) continue;
    for (const auto& [key, text] : dict.entries()) f.options.set_raw(key, text);
  }
  bound_ = false;
}

Status Model::bind(const FeatureNamer& namer) {
  for (ModelFeature& f : features_) {
    TWINMAF_ASSIGN_OR_RETURN(f.collector_name, namer(f));
  }
  bound_ = true;
  return ok_status();
}

Result<double> Model::raw_score(const Collector& collector, unsigned index) const {
  if (!bound_) TWINMAF_FAIL(kInternal, "{}: predicting before the features are bound", label_);
  const size_t n = features_.size();
  std::array<double, kMaxModelFeatures> x{};
  const bool rescale = norm_type_ == NormType::kLinearRescale;
  for (size_t k = 0; k < n; ++k) {
    const ModelFeature& f = features_[k];
    const std::optional<double> v = collector.get(f.collector_name, index);
    if (!v)
      TWINMAF_FAIL(kBadInput, "{}: no value of feature '{}' at frame {}", label_, f.collector_name,
                   index);
    x[k] = rescale ? f.slope * *v + f.intercept : *v;
  }
  if (chroma_correction_) {
    const ModelFeature& guided = features_[chroma_guided_];
    const ModelFeature& guiding = features_[chroma_guiding_];
    const double g = x[chroma_guided_];
    const double guided_value = rescale ? (g - guided.intercept) / guided.slope : g;
    if (guided_value == 0.0) {
      const double a = x[chroma_guiding_];
      const double adm = rescale ? (a - guiding.intercept) / guiding.slope : a;
      const double c = *chroma_correction_;
      const double corrected = (-c * adm) + c;
      x[chroma_guided_] = rescale ? guided.slope * corrected + guided.intercept : corrected;
    }
  }
  const double y = svm_.predict(std::span<const double>(x.data(), n));
  return rescale ? (y - intercept_) / slope_ : y;
}

namespace {

// libvmaf find_linear_function_parameters for p1 <= p2 (checked at load).
void linear_parameters(std::pair<double, double> p1, std::pair<double, double> p2, double& alpha,
                       double& beta) {
  const auto [x1, y1] = p1;
  const auto [x2, y2] = p2;
  if (x2 - x1 == 0 || y2 - y1 == 0) {
    alpha = 1.0;
    beta = 0.0;
  } else if (x1 == 0) {
    beta = y1;
    alpha = (y2 - beta) / x2;
  } else {
    alpha = (y2 - y1) / (x2 - x1);
    beta = y1 - (x1 * alpha);
  }
}

// libvmaf piecewise_linear_mapping: every segment is visited in order and a
// later one that also contains x wins; the first/last segments extrapolate.
double piecewise_linear(double x, const std::vector<std::pair<double, double>>& knots) {
  const size_t n_seg = knots.size() - 1;
  double y = 0.0;
  double slope = 0.0, offset = 0.0;
  for (size_t i = 0; i < n_seg; ++i) {
    const auto& a = knots[i];
    const auto& b = knots[i + 1];
    const bool inside = a.first <= x && x <= b.first;
    if (a.second == b.second) {
      if (inside) y = a.second;
      if (i == 0 && x < a.first) y = a.second;
      if (i == n_seg - 1 && x > b.first) y = a.second;
    } else {
      linear_parameters(a, b, slope, offset);
      if (inside) y = slope * x + offset;
      if (i == 0 && x < a.first) y = slope * x + offset;
      if (i == n_seg - 1 && x > b.first) y = slope * x + offset;
    }
  }
  return y;
}

}  // namespace

double Model::apply_transform(double y_in, uint32_t flags) const {
  const ScoreTransform& t = transform_;
  if (!t.enabled || (flags & kModelFlagDisableTransform)) return y_in;
  double y = y_in;
  if (t.p0 || t.p1 || t.p2) {
    y = 0.;
    if (t.p0) y += *t.p0;
    if (t.p1) y += *t.p1 * y_in;
    if (t.p2) y += *t.p2 * y_in * y_in;
  }
  if (t.knots_enabled && t.knots.size() > 1) y = piecewise_linear(y, t.knots);
  if (t.out_lte_in) y = (y > y_in) ? y_in : y;
  if (t.out_gte_in) y = (y < y_in) ? y_in : y;
  return y;
}

double Model::apply_clip(double y, uint32_t flags) const {
  if (!clip_enabled_ || (flags & kModelFlagDisableClip)) return y;
  y = (y < clip_min_) ? clip_min_ : y;
  y = (y > clip_max_) ? clip_max_ : y;
  return y;
}

double Model::finish_score(double raw, uint32_t flags) const {
  return apply_clip(apply_transform(raw, flags), flags);
}

Result<double> Model::predict(Collector& collector, unsigned index) const {
  if (const std::optional<double> stored = collector.get(name_, index)) return *stored;
  TWINMAF_ASSIGN_OR_RETURN(const double raw, raw_score(collector, index));
  const double score = finish_score(raw, 0);
  TWINMAF_RETURN_IF_ERROR(collector.append(name_, index, score));
  return score;
}

namespace {

// libvmaf's qsort comparator; std::qsort keeps its order for any input
// (NaN included), which std::sort would not define.
int compare_scores(const void* a, const void* b) {
  const double x = *static_cast<const double*>(a);
  const double y = *static_cast<const double*>(b);
  if (x > y) return 1;
  if (x < y) return -1;
  return 0;
}

double percentile(const std::vector<double>& s, double perc) {
  const double p = perc * static_cast<double>(s.size() - 1) / 100.;
  const int lo = static_cast<int>(std::floor(p));
  const int hi = static_cast<int>(std::ceil(p));
  return lo == hi ? s[lo] : s[lo] * (hi - p) + s[hi] * (p - lo);
}

}  // namespace

BootstrapScore bootstrap_statistics(std::vector<double> scores, const Model& ref) {
  BootstrapScore out;
  const size_t n = scores.size();
  if (n == 0) return out;
  double sum = 0.;
  for (double s : scores) sum += s;
  const double mean = sum / static_cast<double>(n);
  out.bagging = mean;
  constexpr double kDelta = 0.01;
  double plus = mean + kDelta;
  double minus = mean - kDelta;
  double ssd = 0.;
  for (double s : scores) {
    const double d = s - mean;
    ssd += d * d;  // libvmaf's pow(d, 2), which gcc emits as d * d
  }
  out.stddev = std::sqrt(ssd / static_cast<double>(n));
  std::qsort(scores.data(), n, sizeof(double), compare_scores);
  out.ci_p95_lo = percentile(scores, 2.5);
  out.ci_p95_hi = percentile(scores, 97.5);
  out.bagging = ref.finish_score(out.bagging, 0);
  out.ci_p95_lo = ref.finish_score(out.ci_p95_lo, 0);
  out.ci_p95_hi = ref.finish_score(out.ci_p95_hi, 0);
  plus = ref.finish_score(plus, 0);
  minus = ref.finish_score(minus, 0);
  const double slope = (plus - minus) / (2.0 * kDelta);
  out.stddev *= slope;
  return out;
}

// ---------------------------------------------------------------------------
// LoadedModel

Result<FeatureUse> resolve_model_feature(const ModelFeature& feature, std::string_view model_label,
                                         FindProvider find) {
  const std::optional<ExtractorRef> provider = find(feature.name);
  if (!provider)
    TWINMAF_FAIL(kUnsupported, "{}: no feature extractor provides '{}'", model_label,
                 quote(feature.name));
  auto options = Options::parse(provider->name, *provider->options, feature.options);
  if (!options.ok())
    return Status(options.status().code(), fmt::format("{}: feature '{}': {}", model_label,
                                                       feature.name, options.status().message()));
  FeatureUse use;
  use.provided_name = feature.name;
  use.extractor = provider->name;
  use.dict = feature.options;
  use.options = std::move(options).value();
  use.collector_name = use.options.feature_name(feature.name);
  return use;
}

Result<LoadedModel> LoadedModel::from_json(std::string_view json, const ModelConfig& cfg,
                                           std::string_view label) {
  const std::string prefix = fmt::format("model {}", label);
  auto parsed = detail::parse_json(json);
  if (!parsed.ok())
    return Status(parsed.status().code(), prefix + ": " + parsed.status().message());
  const JsonNode& root = parsed.value();
  if (!root.is(Kind::kObject))
    TWINMAF_FAIL(kInvalidArgument, "{}: the file is {}, expected an object", prefix,
                 kind_name(root));
  LoadedModel out;
  out.label_ = std::string(label);
  if (const JsonNode* dict = root.find("model_dict")) {
    TWINMAF_ASSIGN_OR_RETURN(out.main_, Model::from_node(*dict, cfg, prefix));
    return out;
  }
  // A collection: keys "0", "1", ... in file order; other keys are skipped.
  unsigned next = 0;
  for (size_t i = 0; i < root.keys.size(); ++i) {
    if (root.keys[i] != std::to_string(next)) continue;
    if (next > 9999)
      TWINMAF_FAIL(kInvalidArgument, "{}: more than 9999 collection members", prefix);
    const JsonNode& member = root.items[i];
    const JsonNode* dict = member.is(Kind::kObject) ? member.find("model_dict") : nullptr;
    if (!dict)
      TWINMAF_FAIL(kInvalidArgument, "{}: collection entry \"{}\" has no model_dict", prefix,
                   next);
    ModelConfig c = cfg;
    if (next > 0) c.name = fmt::format("{}_{:04d}", cfg.name, next);
    const std::string member_label = fmt::format("{} (collection entry \"{}\")", prefix, next);
    TWINMAF_ASSIGN_OR_RETURN(Model m, Model::from_node(*dict, c, member_label));
    if (next == 0) {
      out.main_ = std::move(m);
    } else {
      const ModelType type = out.members_.empty() ? m.type() : out.members_[0].type();
      if (type != ModelType::kBootstrapSvmNuSvr && type != ModelType::kResidueBootstrapSvmNuSvr)
        TWINMAF_FAIL(kInvalidArgument,
                     "{}: collection members must be BOOTSTRAP_LIBSVMNUSVR or "
                     "RESIDUEBOOTSTRAP_LIBSVMNUSVR models",
                     prefix);
      if (m.type() != type)
        TWINMAF_FAIL(kInvalidArgument, "{}: collection entry \"{}\" has another model_type",
                     prefix, next);
      out.members_.push_back(std::move(m));
    }
    ++next;
  }
  if (next == 0)
    TWINMAF_FAIL(kInvalidArgument, "{}: neither a model_dict nor a collection (\"0\", \"1\", ...)",
                 prefix);
  if (out.members_.empty())
    TWINMAF_FAIL(kInvalidArgument, "{}: the collection has no entry \"1\"", prefix);
  out.collection_name_ = cfg.name;
  return out;
}

std::optional<ViewingSize> model_viewing_size(std::string_view version) {
  if (!find_builtin_model(version)) return std::nullopt;
  if (version.find("_4k_") != std::string_view::npos || version.ends_with("_2160")) return ViewingSize{3840, 2160};
  return ViewingSize{1920, 1080};
}

Result<LoadedModel> LoadedModel::from_version(std::string_view version, const ModelConfig& cfg) {
  const BuiltinModelData* data = find_builtin_model(version);
  if (!data) {
    std::string names;
    for (const BuiltinModelData& m : builtin_models())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", m.version);
    TWINMAF_FAIL(kInvalidArgument, "no built-in model '{}' (built in: {})", quote(version), names);
  }
  return from_json(data->text(), cfg, version);
}

Result<LoadedModel> LoadedModel::from_file(const std::string& path, const ModelConfig& cfg) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".pkl") == 0)
    TWINMAF_FAIL(kUnsupported, "model {}: pkl model files are not supported, use json", path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) TWINMAF_FAIL(kIo, "model {}: is a directory", path);
  // The largest model libvmaf ships is under 0.5 MB; the JSON tree needs
  // about 70 bytes per byte of text, so a bound keeps memory bounded. It
  // bounds what is read, not the size a file claims: a device or a pipe
  // (/dev/zero) has none.
  std::ifstream in(path, std::ios::binary);
  if (!in) TWINMAF_FAIL(kIo, "model {}: cannot open: {}", path, std::strerror(errno));
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
    if (text.size() > kMaxModelFileBytes)
      TWINMAF_FAIL(kInvalidArgument, "model {}: model files above {} bytes are refused", path, kMaxModelFileBytes);
  }
  if (in.bad()) TWINMAF_FAIL(kIo, "model {}: read error", path);
  return from_json(text, cfg, path);
}

std::vector<const ModelFeature*> LoadedModel::features() const {
  std::vector<const ModelFeature*> out;
  for (const Model& m : members_)
    for (const ModelFeature& f : m.features()) out.push_back(&f);
  for (const ModelFeature& f : main_.features()) out.push_back(&f);
  return out;
}

void LoadedModel::overload(std::string_view extractor_name, const OptionDict& dict, FindProvider find) {
  for (Model& m : members_) m.overload(extractor_name, dict, find);
  main_.overload(extractor_name, dict, find);
}

Result<std::vector<FeatureUse>> LoadedModel::bind(FindProvider find) {
  const std::string prefix = fmt::format("model {}", label_);
  std::vector<FeatureUse> uses;
  auto bind_one = [&](Model& m) -> Status {
    return m.bind([&](const ModelFeature& f) -> Result<std::string> {
      TWINMAF_ASSIGN_OR_RETURN(FeatureUse use, resolve_model_feature(f, prefix, find));
      std::string name = use.collector_name;
      uses.push_back(std::move(use));
      return name;
    });
  };
  for (Model& m : members_) TWINMAF_RETURN_IF_ERROR(bind_one(m));
  TWINMAF_RETURN_IF_ERROR(bind_one(main_));
  return uses;
}

Status LoadedModel::bind(const FeatureNamer& namer) {
  for (Model& m : members_) TWINMAF_RETURN_IF_ERROR(m.bind(namer));
  return main_.bind(namer);
}

Status LoadedModel::predict_main(Collector& collector, unsigned index) const {
  auto score = main_.predict(collector, index);
  return score.ok() ? ok_status() : score.status();
}

Result<BootstrapScore> LoadedModel::predict_collection(Collector& collector,
                                                       unsigned index) const {
  if (members_.empty()) return BootstrapScore{};
  std::vector<double> raw(members_.size());
  for (size_t j = 0; j < members_.size(); ++j) {
    // Statistics use the member's score without transform and clip; the
    // member's own column gets both (libvmaf predicts twice; the SVR part is
    // the same computation, so it is done once).
    TWINMAF_ASSIGN_OR_RETURN(raw[j], members_[j].raw_score(collector, index));
    TWINMAF_RETURN_IF_ERROR(
        collector.append(members_[j].name(), index, members_[j].finish_score(raw[j], 0)));
  }
  const BootstrapScore s = bootstrap_statistics(std::move(raw), members_[0]);
  const std::string& c = collection_name_;
  TWINMAF_RETURN_IF_ERROR(collector.append(c + "_bagging", index, s.bagging));
  TWINMAF_RETURN_IF_ERROR(collector.append(c + "_stddev", index, s.stddev));
  TWINMAF_RETURN_IF_ERROR(collector.append(c + "_ci_p95_lo", index, s.ci_p95_lo));
  TWINMAF_RETURN_IF_ERROR(collector.append(c + "_ci_p95_hi", index, s.ci_p95_hi));
  return s;
}

Result<ModelRequest> parse_model_request(std::string_view text) {
  ModelRequest r;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(':', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    // libvmaf splits with strsep on '=': key, value; anything after a second
    // '=' is dropped.
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    std::optional<std::string_view> val;
    if (eq != std::string_view::npos) {
      const std::string_view rest = item.substr(eq + 1);
      val = rest.substr(0, rest.find('='));
    }
    if (!val) {
      if (key == "disable_clip" || key == "enable_transform") val = "true";
      else
        TWINMAF_FAIL(kInvalidArgument, "--model: bad option string '{}' in '{}'", quote(key),
                     quote(text));
    }
    if (key == "path") {
      r.path = std::string(*val);
    } else if (key == "name") {
      r.config.name = std::string(*val);
    } else if (key == "version") {
      r.version = std::string(*val);
    } else if (key == "disable_clip") {
      if (*val == "true") r.config.flags |= kModelFlagDisableClip;
    } else if (key == "enable_transform") {
      if (*val == "true") r.config.flags |= kModelFlagEnableTransform;
    } else {
      const size_t dot = key.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 == key.size())
        TWINMAF_FAIL(kInvalidArgument,
                     "--model: unknown option '{}' (path, version, name, disable_clip, "
                     "enable_transform or <extractor>.<option>=<value>)",
                     quote(key));
      // strsep on '.' twice: "a.b.c" names option "b".
      const std::string_view option = key.substr(dot + 1).substr(0, key.substr(dot + 1).find('.'));
      if (r.overloads.size() == 32)
        TWINMAF_FAIL(kInvalidArgument, "--model: at most 32 feature overloads per model");
      OptionDict d;
      d.set(option, *val);
      r.overloads.emplace_back(std::string(key.substr(0, dot)), std::move(d));
    }
  }
  if (r.version.empty() && r.path.empty())
    TWINMAF_FAIL(kInvalidArgument, "--model '{}': needs version= or path=", quote(text));
  return r;
}

Result<LoadedModel> load_model(const ModelRequest& request, FindProvider find) {
  auto m = request.version.empty() ? LoadedModel::from_file(request.path, request.config)
                                   : LoadedModel::from_version(request.version, request.config);
  if (!m.ok()) return m.status();
  for (const auto& [extractor, dict] : request.overloads) {
    // An overload must reach a feature of the model, as an unknown --feature
    // option is an error (libvmaf ignores it silently).
    const std::vector<const ModelFeature*> features = m->features();
    std::string used;
    bool reaches = false;
    for (const ModelFeature* f : features) {
      const std::optional<ExtractorRef> provider = find(f->name);
      if (!provider) continue;
      reaches = reaches || provider->name == extractor;
      if (used.find(std::string(provider->name)) == std::string::npos)
        used += fmt::format("{}{}", used.empty() ? "" : ", ", provider->name);
    }
    if (!reaches)
      TWINMAF_FAIL(kInvalidArgument, "--model {}: '{}.{}' names an extractor the model does not use (it uses {})",
                   request.label(), extractor, dict.entries().front().first, used);
    m->overload(extractor, dict, find);
  }
  return m;
}

}  // namespace twinmaf
