// The --html report: one self-contained HTML file (no network at view time)
// with per-frame plots of every metric (the distorted inputs of one reference
// overlaid), the pooled table, the worst frames, the command line and the
// versions.
//
// Plots are drawn by Plotly's JavaScript, embedded whole from the file the
// distribution installs (Debian: python3-plotly, /usr/share/python3-plotly/
// plotly.js), read when the report is written; the per-frame values are
// embedded as JSON (shortest round-trip doubles, null where a frame has no
// value). The plot divs have ids "plot-<k>" and class "twinmaf-plot".
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "core/stats.h"

namespace twinmaf {

struct HtmlLane {
  std::string name;  // the distorted input
  const Collector* collector = nullptr;
  std::vector<std::pair<std::string, double>> aggregates;
};

struct HtmlReportData {
  std::string title;
  std::vector<std::string> command_line;
  std::vector<std::pair<std::string, std::string>> facts;  // label -> text, in order (versions, inputs, ...)
  std::vector<HtmlLane> lanes;
  std::vector<std::string> primary;  // metrics plotted first with their worst frames (model scores)
  unsigned frames = 0;
  unsigned subsample = 1;
};

// The JavaScript file embedded in reports, fixed at build time
// (TWINMAF_PLOTLY_JS); an error naming it and its package when it is missing.
Status html_plot_library_available();

// Formats the report (reads the plot library).
Result<std::string> format_html_report(const HtmlReportData& data);

}  // namespace twinmaf
