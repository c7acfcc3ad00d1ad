#include "tools/twinmaf/batch.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

namespace twinmaf::cli {

namespace {

using nlohmann::json;

constexpr size_t kMaxJobsFile = size_t(64) << 20;

// Flags that act on the whole process or the whole batch, not on one job.
const std::set<std::string, std::less<>> kBatchOnly = {"batch", "batch-summary", "batch-jobs", "help", "version",
                                                        "progress", "cpumask"};

std::string location(unsigned line) { return "line " + std::to_string(line); }

// A job's line as command-line arguments: the defaults not named by the
// job, then the job's flags in its keys' order.
Result<std::vector<std::string>> job_arguments(const json& job, const std::vector<CliFlag>& defaults,
                                               bool gpus_assigned) {
  if (!job.is_object())
    return Status(Code::kInvalidArgument, "a job is a JSON object of flags, e.g. {\"reference\": \"r.y4m\", ...}");
  std::vector<std::string> args{"twinmaf"};
  const auto add = [&](const std::string& name, const std::optional<std::string>& value) {
    args.push_back(value ? "--" + name + "=" + *value : "--" + name);
  };
  for (const CliFlag& f : defaults)
    if (!job.contains(f.name)) add(f.name, f.value);
  for (const auto& [key, v] : job.items()) {
    if (key.empty() || key.front() == '-')
      return Status(Code::kInvalidArgument, "\"" + key + "\": keys are long flag names without dashes");
    if (kBatchOnly.contains(key))
      return Status(Code::kInvalidArgument,
                    "\"" + key + "\" is not a job's flag: give it on the command line, beside --batch");
    if (key == "gpu" && gpus_assigned)
      return Status(Code::kInvalidArgument, "\"gpu\": the command line's --gpu list assigns each job's GPU");
    // Each value: false and null give no flag, true the bare flag, a string
    // or number its text.
    for (const json& item : v.is_array() ? v : json::array({v})) {
      if (item.is_null() || (item.is_boolean() && !item.get<bool>())) continue;
      if (item.is_boolean()) add(key, std::nullopt);
      else if (item.is_string()) add(key, item.get<std::string>());
      else if (item.is_number()) add(key, item.dump());
      else
        return Status(Code::kInvalidArgument,
                      "\"" + key + "\": a value is a string, a number, a boolean or a list of them");
    }
  }
  return args;
}

Result<CliRequest> parse_job(const json& job, const std::vector<CliFlag>& defaults, bool gpus_assigned) {
  auto args = job_arguments(job, defaults, gpus_assigned);
  if (!args.ok()) return args.status();
  std::vector<char*> argv;
  for (std::string& a : *args) argv.push_back(a.data());
  auto req = parse_cli(static_cast<int>(argv.size()), argv.data());
  if (!req.ok()) return req.status();
  if (!req->help.empty() || req->version || !req->batch.empty())
    return Status(Code::kInvalidArgument, "a job cannot ask for --help, --version or --batch");
  const auto refuse = [](const std::string& flag, const std::string& what) {
    return Status(Code::kInvalidArgument, flag + " -: a batch job " + what);
  };
  if (req->reference.path == "-") return refuse("-r", "reads files, not standard input");
  for (const InputFile& d : req->distorted)
    if (d.path == "-") return refuse("-d", "reads files, not standard input");
  for (const std::string& o : req->outputs)
    if (o == "-") return refuse("-o", "writes files, not standard output");
  if (req->html == "-") return refuse("--html", "writes files, not standard output");
  if (Status st = check_request(*req); !st.ok()) return st;
  return req;
}

// " (as OTHER)" where another job names the file by another path.
std::string same_file(const std::string& path, const std::string& other) {
  return path == other ? std::string() : " (as " + other + ")";
}

// Outputs written by two jobs, or written by one and read by another: the
// later job (by line) is refused.
void check_across_jobs(std::vector<BatchJob>& jobs) {
  std::map<std::string, std::pair<unsigned, std::string>> written, read;  // identity: line, path
  using Named = std::pair<std::string, std::string>;  // path, identity
  for (BatchJob& j : jobs) {
    if (!j.status.ok()) continue;
    const CliRequest& r = j.request;
    std::vector<Named> outs, ins;
    const auto name = [](std::vector<Named>& to, const std::string& path) {
      if (std::optional<std::string> id = file_identity(path)) to.emplace_back(path, std::move(*id));
    };
    for (const std::string& o : r.outputs) name(outs, o);
    if (!r.html.empty()) name(outs, r.html);
    name(ins, r.reference.path);
    for (const InputFile& d : r.distorted) name(ins, d.path);
    for (const auto& [o, id] : outs) {
      for (const auto* seen : {&written, &read})
        if (const auto it = seen->find(id); it != seen->end() && it->second.first != j.line) {
          j.status = Status(Code::kInvalidArgument, o + " is also " + (seen == &written ? "written" : "read") + " by " +
                                                        location(it->second.first) + same_file(o, it->second.second));
          break;
        }
      if (!j.status.ok()) break;
    }
    for (const auto& [i, id] : ins) {
      if (!j.status.ok()) break;
      if (const auto it = written.find(id); it != written.end())
        j.status = Status(Code::kInvalidArgument,
                          i + " is written by " + location(it->second.first) + same_file(i, it->second.second));
    }
    if (!j.status.ok()) continue;
    for (const auto& [o, id] : outs) written.emplace(id, std::pair{j.line, o});
    for (const auto& [i, id] : ins) read.emplace(id, std::pair{j.line, i});
  }
}

// A JSON number, or null where it is not finite (JSON has no inf or nan).
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

std::vector<BatchJob> parse_jobs(std::string_view text, const std::vector<CliFlag>& defaults, bool gpus_assigned) {
  std::vector<BatchJob> jobs;
  unsigned line = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view l = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line;
    if (l.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    BatchJob job;
    job.line = line;
    try {
      auto req = parse_job(json::parse(l), defaults, gpus_assigned);
      if (req.ok()) job.request = std::move(*req);
      else job.status = req.status();
    } catch (const json::exception& e) {
      // "[json.exception.parse_error.101] parse error at ...": the text after the tag.
      std::string what = e.what();
      if (const size_t tag = what.find("] "); tag != std::string::npos) what.erase(0, tag + 2);
      job.status = Status(Code::kInvalidArgument, "not a JSON object: " + what);
    }
    jobs.push_back(std::move(job));
  }
  check_across_jobs(jobs);
  return jobs;
}

Result<std::string> read_jobs(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return Status(Code::kIo, "--batch: cannot read " + path);
  }
  std::istream& in = path == "-" ? std::cin : file;
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, size_t(in.gcount()));
    if (text.size() > kMaxJobsFile)
      return Status(Code::kInvalidArgument, "--batch " + path + ": above 64 MiB, not a file of jobs");
  }
  if (in.bad()) return Status(Code::kIo, "--batch: cannot read " + path);
  return text;
}

int run_batch(const CliRequest& batch, const std::vector<BatchJob>& jobs, const BatchPrinter& print) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string name = batch.batch == "-" ? "standard input" : batch.batch;
  const auto where = [&](const BatchJob& j) { return name + ":" + std::to_string(j.line) + ": "; };
  std::vector<Status> status(jobs.size());
  std::vector<json> summary(jobs.size());
  std::vector<Job> runnable;
  std::vector<size_t> index;  // runnable[k] is jobs[index[k]]
  size_t done = 0;
  const auto finish = [&](size_t k, const Status& st, const Scorer* scorer) {
    const BatchJob& j = jobs[k];
    status[k] = st;
    json s = {{"line", j.line}};
    if (j.status.ok()) {
      s["reference"] = j.request.reference.path;
      s["distorted"] = json::array();
      for (const InputFile& d : j.request.distorted) s["distorted"].push_back(d.path);
    }
    if (scorer) {
      if (st.ok()) {
        json frames = json::array(), pooled = json::array();
        for (unsigned l = 0; l < j.request.distorted.size(); ++l) {
          frames.push_back(scorer->frames(l));
          json p = json::object();
          for (const std::string& m : scorer->metrics(l))
            if (auto v = scorer->pooled(m, l); v.ok()) p[m] = number(v->mean);
          pooled.push_back(std::move(p));
        }
        s["frames"] = std::move(frames);
        s["pooled"] = std::move(pooled);
      }
      s["seconds"] = scorer->info().seconds;
    }
    s["error"] = st.ok() ? json(nullptr) : json(st.message());
    summary[k] = std::move(s);
    if (!st.ok()) std::fprintf(stderr, "twinmaf: error: %s%s\n", where(j).c_str(), st.message().c_str());
    ++done;
    if (print.progress)
      print.progress(done, jobs.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (!jobs[k].status.ok()) {
      finish(k, jobs[k].status, nullptr);
      continue;
    }
    const CliRequest& r = jobs[k].request;
    runnable.push_back(Job{r.config, r.reference, r.distorted, r.limits});
    index.push_back(k);
  }
  BatchOptions options;
  options.in_flight = batch.batch_jobs;
  options.gpus = batch.batch_gpus;
  options.done = [&](size_t job, std::unique_ptr<Scorer> scorer, const Status& st) {
    const size_t k = index[job];
    const BatchJob& j = jobs[k];
    Status result = st;
    if (scorer) {
      if (print.info) print.info(j.request, *scorer, where(j));
      if (result.ok()) result = write_outputs(j.request, *scorer);
      if (result.ok() && print.results) print.results(j.request, *scorer, where(j));
    }
    finish(k, result, scorer.get());
  };
  score_many(runnable, options);

  int code = 0;
  for (const Status& st : status)
    if (!st.ok()) {
      code = st.exit_code();
      break;
    }
  if (!batch.batch_summary.empty()) {
    std::string text;
    for (const json& s : summary) text += s.dump() + "\n";
    if (Status w = write_files({{batch.batch_summary, text}}); !w.ok()) {
      std::fprintf(stderr, "twinmaf: error: --batch-summary: %s\n", w.message().c_str());
      if (code == 0) code = w.exit_code();
    }
  }
  return code;
}

}  // namespace twinmaf::cli
