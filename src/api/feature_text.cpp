#include "api/feature_text.h"

#include <cstdio>
#include <vector>

#include "features/feature.h"
#include "twinmaf/twinmaf.h"

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

Result<FeatureText> parse_feature_text(std::string_view text) {
  FeatureText req;
  const size_t eq = text.find('=');
  req.name = std::string(text.substr(0, eq));
  if (req.name.empty()) TWINMAF_FAIL(kInvalidArgument, "--feature '{}': missing feature name", text);
  if (eq == std::string_view::npos) return req;
  for (std::string_view kv : split(text.substr(eq + 1), ':')) {
    const size_t e = kv.find('=');
    if (e == std::string_view::npos || e == 0)
      TWINMAF_FAIL(kInvalidArgument, "--feature {}: bad option string '{}' (want key=value)", req.name, kv);
    req.options.set_raw(kv.substr(0, e), dictionary_text(kv.substr(e + 1)));
  }
  return req;
}

std::string dictionary_text(std::string_view text) {
  const std::string s(text);
  float number = 0;
  char after = 0;
  if (std::sscanf(s.c_str(), "%f %c", &number, &after) == 1) return normalize_option_text(s);
  return s;
}

OptionDict option_dict(const std::vector<std::pair<std::string, std::string>>& options) {
  OptionDict dict;
  for (const auto& [key, text] : options) dict.set_raw(key, dictionary_text(text));
  return dict;
}

// libvmaf tools/cli_parse.c's presets: model texts and feature texts.
Status apply_preset(std::string_view preset, std::string_view version, ScorerConfig& cfg) {
  std::vector<std::string> models, features;
  if (preset == "aom_ctc") {
    const bool known = version == "v1.0" || version == "v2.0" || version == "v3.0" || version == "v4.0" ||
                       version == "v5.0" || version == "v6.0" || version == "v7.0";
    if (!known) TWINMAF_FAIL(kInvalidArgument, "invalid argument '{}' for --aom_ctc; should be v1.0 .. v7.0", version);
    models = {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg"};
    features = {"psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", "ciede",
                version == "v7.0" ? "float_ssim=scale=1:enable_db=true:clip_db=true"
                                  : "float_ssim=enable_db=true:clip_db=true",
                "float_ms_ssim=enable_db=true:clip_db=true", "psnr_hvs"};
    if (version != "v1.0" && version != "v2.0") features.push_back("cambi");
  } else if (preset == "nflx_ctc") {
    if (version != "v1.0") TWINMAF_FAIL(kInvalidArgument, "invalid argument '{}' for --nflx_ctc; should be v1.0", version);
    models = {"version=vmaf_4k_v0.6.1:name=vmaf", "version=vmaf_4k_v0.6.1neg:name=vmaf_neg"};
    features = {"psnr=enable_chroma=true:enable_apsnr=true", "float_ssim=enable_db=true:clip_db=true", "cambi"};
  } else {
    TWINMAF_FAIL(kInvalidArgument, "unknown preset '{}' (aom_ctc or nflx_ctc)", preset);
  }
  // Checked first: a refused preset leaves cfg as it was.
  for (const std::string& f : features) {
    TWINMAF_ASSIGN_OR_RETURN(const FeatureText req, parse_feature_text(f));
    if (!find_feature(req.name))
      TWINMAF_FAIL(kUnsupported, "--{} {} needs feature '{}', which twinmaf does not provide yet", preset, version,
                   req.name);
  }
  for (const std::string& f : features) {
    const std::string name = f.substr(0, f.find('='));
    // A preset's feature replaces an earlier request of the same name.
    bool replaced = false;
    for (std::string& existing : cfg.features) {
      auto e = parse_feature_text(existing);
      if (e.ok() && e->name == name) {
        existing = f;
        replaced = true;
      }
    }
    if (!replaced) cfg.features.push_back(f);
  }
  for (std::string& m : models) cfg.models.push_back(std::move(m));
  if (preset == "aom_ctc" && (version == "v6.0" || version == "v7.0")) cfg.common_bitdepth = true;
  return ok_status();
}


Result<Backend> parse_backend(std::string_view text) {
  if (text == "cpu") return Backend::kCpu;
  if (text == "cuda") return Backend::kCuda;
  if (text == "auto") return Backend::kAuto;
  TWINMAF_FAIL(kInvalidArgument, "--backend: '{}' is not cpu, cuda or auto", text);
}

Result<std::vector<Decode>> parse_decode(std::string_view text) {
  std::vector<Decode> out;
  for (std::string_view part : split(text, ',')) {
    if (part == "auto") out.push_back(Decode::kAuto);
    else if (part == "cpu") out.push_back(Decode::kCpu);
    else if (part == "nvdec") out.push_back(Decode::kNvdec);
    else TWINMAF_FAIL(kInvalidArgument, "--decode: '{}' is not auto, cpu or nvdec", part);
  }
  return out;
}

Result<BackendChoice> parse_backend_choice(std::string_view text) {
  // A default or a feature given twice is an error, not a precedence.
  BackendChoice c;
  bool defaulted = false;
  for (std::string_view part : split(text, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      if (defaulted) TWINMAF_FAIL(kInvalidArgument, "--backend {}: the default backend is given twice", text);
      defaulted = true;
      TWINMAF_ASSIGN_OR_RETURN(c.backend, parse_backend(part));
      continue;
    }
    const std::string_view name = part.substr(0, eq);
    if (!find_feature(name))
      TWINMAF_FAIL(kInvalidArgument, "--backend {}: unknown feature '{}'", text, name);
    for (const auto& [given, backend] : c.per_feature)
      if (given == name) TWINMAF_FAIL(kInvalidArgument, "--backend {}: '{}' is given twice", text, name);
    TWINMAF_ASSIGN_OR_RETURN(const Backend b, parse_backend(part.substr(eq + 1)));
    c.per_feature.emplace_back(std::string(name), b);
  }
  return c;
}

}  // namespace twinmaf
