#include "output/writer.h"

#include <climits>
#include <cmath>

#include "core/options.h"
#include "core/pooling.h"
#include "output/file_output.h"

namespace twinmaf {

namespace {

// libvmaf's count_leading_zeros_d, including (int)x for |x| >= 2^31, which
// x86 evaluates to INT_MIN.
int leading_zeros(double x) {
  if (x < 0) x = std::fabs(x);
  const int int_part = (x < 2147483648.0) ? static_cast<int>(x) : INT_MIN;
  double frac = x - int_part;
  int n = 0;
  while (frac < 1.0 && frac != 0) {
    frac *= 10;
    ++n;
  }
  return n;
}

void append_printf(std::string& out, const char* fmt, double v, int digits) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, fmt, digits, v);
  out.append(buf, static_cast<size_t>(n));
}

}  // namespace

Result<Precision> parse_precision(std::string_view text) {
  if (text == "max") return Precision{Precision::Mode::kMax, 17};
  int n = -1;
  const std::string s(text);
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (!s.empty() && *end == '\0' && v >= 0 && v <= 17) n = static_cast<int>(v);
  if (n < 0) TWINMAF_FAIL(kInvalidArgument, "--precision: '{}' is not 0..17 or max", text);
  return Precision{Precision::Mode::kFixed, n};
}

std::string format_number(double v, const Precision& p) {
  std::string out;
  switch (p.mode) {
    case Precision::Mode::kDefault:
      append_printf(out, "%.*f", v, leading_zeros(v) <= 6 ? 6 : 16);
      break;
    case Precision::Mode::kFixed: append_printf(out, "%.*f", v, p.digits); break;
    case Precision::Mode::kMax: append_printf(out, "%.*g", v, 17); break;
  }
  return out;
}

namespace {

struct Frames {
  const Collector& c;
  unsigned subsample;
  // Rows written: indices with at least one value, skipping subsampled ones.
  std::vector<unsigned> rows() const {
    std::vector<unsigned> out;
    for (unsigned i = 0; i < c.frame_count(); ++i) {
      if (subsample > 1 && i % subsample) continue;
      for (const auto& col : c.columns())
        if (i < col.written.size() && col.written[i]) {
          out.push_back(i);
          break;
        }
    }
    return out;
  }
};

bool written(const Collector::Column& col, unsigned i) { return i < col.written.size() && col.written[i]; }

std::string xml(const Collector& c, const OutputInfo& info) {
  const Precision& p = info.precision;
  std::string o;
  o += fmt::format("<VMAF version=\"{}\">\n", info.version);
  o += fmt::format("  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />\n", info.width, info.height);
  char fps[64];
  std::snprintf(fps, sizeof fps, "%.2f", info.fps);
  o += fmt::format("  <fyi fps=\"{}\" />\n", fps);
  o += "  <frames>\n";
  for (unsigned i : Frames{c, info.subsample}.rows()) {
    o += fmt::format("    <frame frameNum=\"{}\" ", i);
    for (const auto& col : c.columns())
      if (written(col, i))
        o += fmt::format("{}=\"{}\" ", feature_name_alias(col.name), format_number(col.values[i], p));
    o += "/>\n";
  }
  o += "  </frames>\n";
  o += "  <pooled_metrics>\n";
  for (const auto& col : c.columns()) {
    o += fmt::format("    <metric name=\"{}\" ", feature_name_alias(col.name));
    for (PoolMethod m : kPoolMethods)
      if (auto v = pool(col, m, 0, info.frames - 1, info.subsample))
        o += fmt::format("{}=\"{}\" ", pool_method_name(m), format_number(*v, p));
    o += "/>\n";
  }
  o += "  </pooled_metrics>\n";
  o += "  <aggregate_metrics ";
  for (const auto& [name, v] : c.aggregates()) o += fmt::format("{}=\"{}\" ", name, format_number(v, p));
  o += "/>\n";
  o += "</VMAF>\n";
  return o;
}

std::string json_number(double v, const Precision& p) {
  return std::isfinite(v) ? format_number(v, p) : "null";
}

std::string json(const Collector& c, const OutputInfo& info) {
  const Precision& p = info.precision;
  std::string o = "{\n";
  o += fmt::format("  \"version\": \"{}\",\n", info.version);
  if (std::isfinite(info.fps)) {
    char fps[64];
    std::snprintf(fps, sizeof fps, "%.2f", info.fps);
    o += fmt::format("  \"fps\": {},\n", fps);
  } else {
    o += "  \"fps\": null,\n";
  }
  if (!info.backends.empty()) {
    o += "  \"backends\": {";
    for (size_t i = 0; i < info.backends.size(); ++i)
      o += fmt::format("{}\n    \"{}\": \"{}\"", i ? "," : "", info.backends[i].first,
                       info.backends[i].second);
    o += "\n  },\n";
  }
  o += "  \"frames\": [";
  bool first_frame = true;
  for (unsigned i : Frames{c, info.subsample}.rows()) {
    o += first_frame ? "\n" : ",\n";
    first_frame = false;
    o += "    {\n";
    o += fmt::format("      \"frameNum\": {},\n", i);
    o += "      \"metrics\": {\n";
    unsigned cnt = 0;
    for (const auto& col : c.columns()) cnt += written(col, i);
    unsigned k = 0;
    for (const auto& col : c.columns()) {
      if (!written(col, i)) continue;
      ++k;
      const double v = col.values[i];
      const char* comma = k < cnt ? "," : "";
      if (std::isfinite(v))
        o += fmt::format("        \"{}\": {}{}\n", feature_name_alias(col.name), format_number(v, p), comma);
      else  // libvmaf writes no newline after a null metric
        o += fmt::format("        \"{}\": null{}", feature_name_alias(col.name), comma);
    }
    o += "      }\n";
    o += "    }";
  }
  o += "\n  ],\n";
  o += "  \"pooled_metrics\": {";
  bool first_col = true;
  for (const auto& col : c.columns()) {
    o += first_col ? "\n" : ",\n";
    first_col = false;
    o += fmt::format("    \"{}\": {{", feature_name_alias(col.name));
    bool first_m = true;
    for (PoolMethod m : kPoolMethods) {
      if (auto v = pool(col, m, 0, info.frames - 1, info.subsample)) {
        o += first_m ? "\n" : ",\n";
        first_m = false;
        o += fmt::format("      \"{}\": {}", pool_method_name(m), json_number(*v, p));
      }
    }
    o += "\n    }";
  }
  o += "\n  },\n";
  o += "  \"aggregate_metrics\": {";
  const auto& agg = c.aggregates();
  for (size_t i = 0; i < agg.size(); ++i) {
    o += fmt::format("\n    \"{}\": {}", agg[i].first, json_number(agg[i].second, p));
    if (i + 1 < agg.size()) o += ",";
  }
  o += "\n  }";
  for (const auto& [key, value] : info.json_extras) o += fmt::format(",\n  \"{}\": {}", key, value);
  o += "\n}\n";
  return o;
}

std::string csv(const Collector& c, const OutputInfo& info) {
  std::string o = "Frame,";
  for (const auto& col : c.columns()) o += fmt::format("{},", feature_name_alias(col.name));
  o += "\n";
  for (unsigned i : Frames{c, info.subsample}.rows()) {
    o += fmt::format("{},", i);
    for (const auto& col : c.columns())
      if (written(col, i)) o += format_number(col.values[i], info.precision) + ",";
    o += "\n";
  }
  return o;
}

std::string sub(const Collector& c, const OutputInfo& info) {
  std::string o;
  for (unsigned i : Frames{c, info.subsample}.rows()) {
    o += fmt::format("{{{}}}{{{}}}frame: {}|", i, i + 1, i);
    for (const auto& col : c.columns())
      if (written(col, i))
        o += fmt::format("{}: {}|", feature_name_alias(col.name), format_number(col.values[i], info.precision));
    o += "\n";
  }
  return o;
}

}  // namespace

std::string format_output(OutputFormat fmt, const Collector& c, const OutputInfo& info) {
  switch (fmt) {
    case OutputFormat::kXml: return xml(c, info);
    case OutputFormat::kJson: return json(c, info);
    case OutputFormat::kCsv: return csv(c, info);
    case OutputFormat::kSub: return sub(c, info);
  }
  return {};
}

Status write_output(const std::string& path, OutputFormat fmt, const Collector& c,
                    const OutputInfo& info) {
  return write_whole_file(path, format_output(fmt, c, info));
}

}  // namespace twinmaf
