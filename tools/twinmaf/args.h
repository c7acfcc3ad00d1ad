// The twinmaf command line (libvmaf's `vmaf` flags plus --precision), parsed
// into a ScoreJob. Shared by the CLI and the end-to-end benchmark.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "engine/job.h"

namespace twinmaf {

struct CliRequest {
  ScoreJob job;
  bool quiet = false;
  bool version = false;
  bool verbose = false;
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

}  // namespace twinmaf
