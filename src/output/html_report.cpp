#include "output/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/options.h"
#include "core/pooling.h"

#ifndef TWINMAF_PLOTLY_JS
#define TWINMAF_PLOTLY_JS ""
#endif

namespace twinmaf {

namespace {

constexpr unsigned kWorstFrames = 10;

std::string escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// A shell-quoted argument, as a user would paste it.
std::string quote_arg(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") ==
                        std::string::npos)
    return a;
  std::string o = "'";
  for (char c : a) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6f}", v) : "-"; }

const Collector::Column* find_column(const Collector& c, std::string_view output_name) {
  for (const Collector::Column& col : c.columns())
    if (feature_name_alias(col.name) == output_name) return &col;
  return nullptr;
}

constexpr std::string_view kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f0f0f0; } td.name, th.name { text-align: left; }
pre { background: #f6f6f6; padding: 0.6em; white-space: pre-wrap; word-break: break-all; }
.twinmaf-plot { width: 100%; height: 340px; }
)";

constexpr std::string_view kPlotScript = R"(
(function () {
  const d = JSON.parse(document.getElementById('twinmaf-data').textContent);
  const big = d.frames.length > 20000;
  d.metrics.forEach(function (m, k) {
    const traces = m.series.map(function (s) {
      return { x: d.frames, y: s.values, name: s.input, type: big ? 'scattergl' : 'scatter', mode: 'lines',
               connectgaps: true, line: { width: 1.2 } };
    });
    Plotly.newPlot('plot-' + k, traces, {
      title: { text: m.name }, hovermode: 'x unified', showlegend: true,
      xaxis: { title: { text: 'frame' } }, yaxis: { title: { text: m.name } },
      margin: { l: 60, r: 20, t: 40, b: 40 }
    }, { responsive: true, displaylogo: false });
  });
})();
)";

}  // namespace

Status html_plot_library_available() {
  const std::string path = TWINMAF_PLOTLY_JS;
  if (path.empty())
    TWINMAF_FAIL(kUnsupported, "this build of twinmaf found no Plotly JavaScript (Debian: apt-get install "
                 "python3-plotly, then reconfigure)");
  std::ifstream in(path);
  if (!in)
    TWINMAF_FAIL(kUnsupported, "the report's plot library {} is missing (Debian: apt-get install python3-plotly)",
                 path);
  return ok_status();
}

Result<std::string> format_html_report(const HtmlReportData& data) {
  TWINMAF_RETURN_IF_ERROR(html_plot_library_available());
  std::ifstream in(TWINMAF_PLOTLY_JS, std::ios::binary);
  std::stringstream js_buf;
  js_buf << in.rdbuf();
  const std::string js = js_buf.str();
  if (!in.good() && !in.eof()) TWINMAF_FAIL(kIo, "{}: cannot read", TWINMAF_PLOTLY_JS);
  // Embedded verbatim in a <script> element, which such text would end.
  if (js.find("</script") != std::string::npos || js.find("</SCRIPT") != std::string::npos)
    TWINMAF_FAIL(kUnsupported, "{}: cannot be embedded (holds '</script')", TWINMAF_PLOTLY_JS);
  std::string plotly_version = "unknown";
  if (const size_t v = js.find("plotly.js v"); v != std::string::npos && v < 200)
    plotly_version = js.substr(v + 11, js.find_first_of("\r\n", v) - v - 11);

  // Metrics: the primary ones first, then every other column of any lane in
  // output order.
  std::vector<std::string> metrics = data.primary;
  for (const HtmlLane& lane : data.lanes)
    for (const Collector::Column& col : lane.collector->columns()) {
      const std::string name(feature_name_alias(col.name));
      if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) metrics.push_back(name);
    }

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += fmt::format("<title>{}</title>\n<style>{}</style>\n", escape(data.title), kStyle);
  o += "<script>\n" + js + "\n</script>\n</head>\n<body>\n";
  o += fmt::format("<h1>{}</h1>\n<table class=\"facts\">\n", escape(data.title));
  for (const auto& [label, text] : data.facts)
    o += fmt::format("<tr><th class=\"name\">{}</th><td class=\"name\">{}</td></tr>\n", escape(label), escape(text));
  o += fmt::format("<tr><th class=\"name\">plots</th><td class=\"name\">plotly.js {}</td></tr>\n</table>\n",
                   escape(plotly_version));
  std::string cmd;
  for (const std::string& a : data.command_line) cmd += (cmd.empty() ? "" : " ") + quote_arg(a);
  o += fmt::format("<h2>Command line</h2>\n<pre id=\"command-line\">{}</pre>\n", escape(cmd));

  // Pooled: libvmaf's pooling (the result files' numbers) and the spread;
  // the primary metrics on top, every metric after the plots.
  const auto pooled_table = [&](const std::vector<std::string>& names, const char* id) {
    o += fmt::format("<table class=\"pooled\" id=\"{}\">\n<tr><th class=\"name\">metric</th>"
                     "<th class=\"name\">input</th><th>mean</th><th>harmonic mean</th><th>min</th><th>max</th>"
                     "<th>p1</th><th>p5</th><th>p50</th><th>stddev</th></tr>\n", id);
    for (const std::string& m : names)
      for (const HtmlLane& lane : data.lanes) {
        const Collector::Column* col = find_column(*lane.collector, m);
        if (!col || data.frames == 0) continue;
        o += fmt::format("<tr><td class=\"name\">{}</td><td class=\"name\">{}</td>", escape(m), escape(lane.name));
        for (PoolMethod pm : {PoolMethod::kMean, PoolMethod::kHarmonicMean, PoolMethod::kMin, PoolMethod::kMax})
          o += "<td>" + number(pool(*col, pm, 0, data.frames - 1, data.subsample).value_or(NAN)) + "</td>";
        const auto s = series_stats(*col, m, data.frames, data.subsample, 0);
        for (double v : {s ? s->p1 : NAN, s ? s->p5 : NAN, s ? s->p50 : NAN, s ? s->stddev : NAN})
          o += "<td>" + number(v) + "</td>";
        o += "</tr>\n";
      }
    o += "</table>\n";
  };
  if (!data.primary.empty()) {
    o += "<h2>Scores</h2>\n";
    pooled_table(data.primary, "summary");
  }

  // Worst frames of the primary metrics (or, without a model, of every
  // metric with a direction).
  o += "<h2>Worst frames</h2>\n<table class=\"worst\" id=\"worst\">\n<tr><th class=\"name\">metric</th>"
       "<th class=\"name\">input</th><th class=\"name\">frames (value), worst first</th></tr>\n";
  for (const std::string& m : data.primary.empty() ? metrics : data.primary)
    for (const HtmlLane& lane : data.lanes) {
      const Collector::Column* col = find_column(*lane.collector, m);
      if (!col) continue;
      const auto s = series_stats(*col, m, data.frames, data.subsample, kWorstFrames);
      if (!s || s->worst.empty()) continue;
      std::string list;
      for (const auto& [frame, v] : s->worst) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", frame, number(v));
      o += fmt::format("<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>\n",
                       escape(m), escape(lane.name), list);
    }
  o += "</table>\n";

  // Plots: one per metric, every input overlaid.
  nlohmann::json d;
  d["frames"] = nlohmann::json::array();
  for (unsigned i = 0; i < data.frames; ++i)
    if (data.subsample <= 1 || i % data.subsample == 0) d["frames"].push_back(i);
  d["metrics"] = nlohmann::json::array();
  o += "<h2>Per-frame scores</h2>\n";
  for (size_t k = 0; k < metrics.size(); ++k) {
    nlohmann::json m;
    m["name"] = metrics[k];
    m["series"] = nlohmann::json::array();
    for (const HtmlLane& lane : data.lanes) {
      const Collector::Column* col = find_column(*lane.collector, metrics[k]);
      if (!col) continue;
      nlohmann::json values = nlohmann::json::array();
      for (unsigned i : d["frames"]) {
        const bool has = i < col->values.size() && col->written[i] && std::isfinite(col->values[i]);
        values.push_back(has ? nlohmann::json(col->values[i]) : nlohmann::json(nullptr));
      }
      m["series"].push_back({{"input", lane.name}, {"values", std::move(values)}});
    }
    d["metrics"].push_back(std::move(m));
    o += fmt::format("<div id=\"plot-{}\" class=\"twinmaf-plot\"></div>\n", k);
  }
  o += "<h2>Pooled scores</h2>\n";
  pooled_table(metrics, "pooled");
  bool aggregates = false;
  for (const HtmlLane& lane : data.lanes) aggregates |= !lane.aggregates.empty();
  if (aggregates) {
    o += "<h2>Whole-sequence values</h2>\n<table class=\"aggregates\">\n";
    for (const HtmlLane& lane : data.lanes)
      for (const auto& [name, v] : lane.aggregates)
        o += fmt::format("<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td></tr>\n", escape(name),
                         escape(lane.name), number(v));
    o += "</table>\n";
  }
  std::string json = d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Inside <script>: "</" would end the element.
  for (size_t p = 0; (p = json.find("</", p)) != std::string::npos; p += 3) json.replace(p, 2, "<\\/");
  o += "<script type=\"application/json\" id=\"twinmaf-data\">" + json + "</script>\n";
  o += fmt::format("<script>{}</script>\n</body>\n</html>\n", kPlotScript);
  return o;
}

}  // namespace twinmaf
