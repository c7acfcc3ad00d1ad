// Result files in libvmaf's layouts (src/output.c of f85a8536): XML, JSON, CSV
// and SUB, byte-identical at the default precision apart from the version and
// fps values.
//
// Number format: by default libvmaf's rule: "%.6f", or "%.16f" when the
// fractional part has more than six leading zeros (counted by repeated x10 in
// double, as libvmaf does). --precision N prints "%.Nf"; --precision max
// prints "%.17g", which round-trips every double.
//
// Deliberate deviation: libvmaf writes a JSON frame list with a leading comma
// when frame 0 carries no value; we always write valid JSON (the first frame
// object written gets no comma). Everything else matches, including non-finite
// values printed as null (without a newline after per-frame ones).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/collector.h"
#include "twinmaf/types.h"

namespace twinmaf {

struct OutputInfo {
  std::string version;
  double fps = 0;
  int width = 0;
  int height = 0;
  unsigned frames = 0;  // pictures read: pooling covers 0..frames-1
  unsigned subsample = 1;
  Precision precision;
  // Extra JSON key "backends": feature -> backend that computed it.
  std::vector<std::pair<std::string, std::string>> backends;
  // Extra JSON keys after "aggregate_metrics", present only when a run asked
  // for them (--align, --scale, --stats): key -> JSON value text, its lines
  // indented for the top level.
  std::vector<std::pair<std::string, std::string>> json_extras;
};

std::string format_output(OutputFormat fmt, const Collector& c, const OutputInfo& info);
Status write_output(const std::string& path, OutputFormat fmt, const Collector& c,
                    const OutputInfo& info);

// libvmaf's per-value number text (exposed for tests).
std::string format_number(double v, const Precision& p);

}  // namespace twinmaf
