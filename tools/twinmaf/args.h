// The twinmaf command line (libvmaf's `vmaf` flags plus twinmaf's own),
// parsed into a scoring job of the public API (twinmaf/twinmaf.h). Shared by
// the CLI and the end-to-end benchmark.
#pragma once

#include <string>
#include <vector>

#include "twinmaf/twinmaf.h"

namespace twinmaf {

// --align without a value: search +-30 frames.
inline constexpr unsigned kDefaultAlignRange = 30;

struct CliRequest {
  ScorerConfig config;
  InputFile reference;
  std::vector<InputFile> distorted;
  RunLimits limits;
  std::vector<std::string> outputs;  // none, or one per distorted input
  OutputFormat output_format = OutputFormat::kXml;
  Precision precision;
  bool quiet = false;
  bool version = false;
  bool verbose = false;
  bool progress = false;  // --progress: progress lines even when stderr is not a terminal
  bool stats = false;     // --stats
  std::string html;       // --html REPORT.html
  std::vector<std::string> command_line;  // argv, for the report
  std::string help;  // non-empty: --help was given
};

// Extra options a tool adds to the common flags.
struct CliExtras {
  struct Option {
    std::string flag;
    std::string* value;
    std::string help;
  };
  std::string program = "twinmaf";
  std::vector<Option> options;
};

// Errors are one line naming the flag or value at fault.
Result<CliRequest> parse_cli(int argc, char** argv, const CliExtras& extras = {});

// Runs a parsed request: scores, writes the result files. The scorer is kept
// in `scorer` (for the summary) even when the run fails.
Status run_cli(const CliRequest& req, std::unique_ptr<Scorer>* scorer);

}  // namespace twinmaf
