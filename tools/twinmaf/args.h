// The twinmaf command line (libvmaf's `vmaf` flags plus twinmaf's own),
// parsed into a scoring job of the public API (twinmaf/twinmaf.h). Shared by
// the CLI and the end-to-end benchmark.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "twinmaf/twinmaf.h"

namespace twinmaf {

// --align without a value: search +-30 frames.
inline constexpr unsigned kDefaultAlignRange = 30;

// A flag as given on the command line: --name, or --name=value.
struct CliFlag {
  std::string name;  // the long name, without dashes
  std::optional<std::string> value;
};

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
  // --batch JOBS (tools/twinmaf/batch.h): the jobs file ("-": standard
  // input), and every other flag given, in command-line order: the defaults
  // of each job. The rest of the request is unset.
  std::string batch;
  std::string batch_summary;  // --batch-summary FILE
  unsigned batch_jobs = 0;    // --batch-jobs N (BatchOptions::in_flight)
  std::vector<int> batch_gpus;  // --gpu all|0,1,... (BatchOptions::gpus)
  std::vector<CliFlag> batch_defaults;
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

// What a path names, for comparing paths: an existing regular file's device
// and inode, a path not there yet its absolute normal form; none for
// standard input and for devices and pipes (/dev/null, /dev/stdout), which
// several outputs may share.
std::optional<std::string> file_identity(const std::string& path);

// Refused before scoring: outputs that cannot be written or that are one
// file, an output that is an input, several inputs on standard input.
Status check_request(const CliRequest& req);

// Runs a parsed request: checks it, scores, writes the result files. The
// scorer is kept in `scorer` (for the summary) even when the run fails.
Status run_cli(const CliRequest& req, std::unique_ptr<Scorer>* scorer);

// The result files of a scored request, all written or none.
Status write_outputs(const CliRequest& req, const Scorer& scorer);

}  // namespace twinmaf
