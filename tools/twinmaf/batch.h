// --batch JOBS: many scoring jobs in one process (twinmaf::score_many).
//
// A jobs file holds one job per line: a JSON object whose keys are the
// command line's long flag names without dashes and whose values are
// strings, numbers, booleans (true: the flag is given; false and null: it is
// not, overriding a default) or lists of them for repeatable flags:
//   {"reference": "r.y4m", "distorted": ["a.mp4"], "output": ["a.json"], "json": true}
// The flags given beside --batch are every job's defaults; a key of a job
// replaces every default of that flag. Blank lines are skipped; jobs are
// named by their line ("jobs.jsonl:3").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/twinmaf/args.h"

namespace twinmaf::cli {

struct BatchJob {
  unsigned line = 0;  // in the jobs file, from 1
  Status status;      // why the job cannot run (one line), else ok
  CliRequest request;
};

// The jobs of a jobs file's text. A job fails alone (its status) when its
// line is not such an object, its flags do not parse (parse_cli), it is
// refused before scoring (check_request), it reads standard input or writes
// standard output, or it writes a file another job writes or reads, or it
// names its GPU where the batch assigns them (`gpus_assigned`: --gpu LIST).
std::vector<BatchJob> parse_jobs(std::string_view text, const std::vector<CliFlag>& defaults,
                                 bool gpus_assigned = false);

// The jobs file's text (at most 64 MiB; "-": standard input).
Result<std::string> read_jobs(const std::string& path);

// How the command line reports one job: its messages on stderr and its
// results on stdout, each line after `where` ("jobs.jsonl:3: ").
struct BatchPrinter {
  std::function<void(const CliRequest& req, const Scorer& scorer, const std::string& where)> info;
  std::function<void(const CliRequest& req, const Scorer& scorer, const std::string& where)> results;
  // After each job: jobs done of all, the batch's seconds so far.
  std::function<void(size_t done, size_t total, double seconds)> progress;
};

// Runs the jobs of `batch` (a parsed --batch request): each job's outputs
// written as its run ends, exactly as a run of its own would write them;
// --batch-summary written at the end. Returns the exit code: 0 when every
// job succeeded, else the code of the first failed job (by line).
int run_batch(const CliRequest& batch, const std::vector<BatchJob>& jobs, const BatchPrinter& print);

}  // namespace twinmaf::cli
