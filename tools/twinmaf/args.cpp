#include "tools/twinmaf/args.h"

#include <CLI/CLI.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace twinmaf;

// Parse errors leave through this exception and become one Status line.
struct ArgError {
  std::string message;
};

[[noreturn]] void fail(const std::string& msg) { throw ArgError{msg}; }

// A --distorted_list line's fields: runs of non-blanks, or "double-quoted"
// text (\" and \\ inside) for paths with blanks; nothing from an unquoted #.
// Empty optional: an unterminated quote.
std::optional<std::vector<std::string>> list_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t i = 0;
  const auto blank = [&](size_t k) { return line[k] == ' ' || line[k] == '\t' || line[k] == '\r'; };
  for (;;) {
    while (i < line.size() && blank(i)) ++i;
    if (i == line.size() || line[i] == '#') return fields;
    std::string f;
    if (line[i] == '"') {
      for (++i;; ++i) {
        if (i == line.size()) return std::nullopt;
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) ++i;
        f.push_back(line[i]);
      }
      ++i;
    } else {
      while (i < line.size() && !blank(i)) f.push_back(line[i++]);
    }
    fields.push_back(std::move(f));
  }
}

// The one parser of numeric flags: decimal digits only (no sign, no octal,
// no wrap-around), within [lo, hi]; anything else names the flag and range.
// (libvmaf's strtoul wraps "-1" to 4294967295 and reads "010" as 8; only
// --cpumask keeps "-1", its documented "every SIMD path off".)
uint64_t parse_count(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  const auto bad = [&] {
    fail("invalid argument '" + text + "' for " + flag + "; should be an integer from " + std::to_string(lo) +
         " to " + std::to_string(hi));
  };
  if (text.empty() || text.size() > 20) bad();
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') bad();
    const uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) bad();
    v = v * 10 + d;
  }
  if (v < lo || v > hi) bad();
  return v;
}

unsigned parse_unsigned(const std::string& flag, const std::string& text, unsigned lo, unsigned hi) {
  return static_cast<unsigned>(parse_count(flag, text, lo, hi));
}

}  // namespace

namespace twinmaf {

Result<CliRequest> parse_cli(int argc, char** argv, const CliExtras& extras) {
  CliRequest out;
  try {
    CLI::App app{"twinmaf: VMAF and its features, bit-exact with libvmaf", extras.program};
    app.set_help_flag("--help", "print this help");
    app.allow_windows_style_options(false);

    ScorerConfig& cfg = out.config;
    std::string ref_path;
    std::vector<std::string> dis_paths;
    bool no_prediction = false;
    std::string w, h, pix, bpc, threads, subsample, cpumask, gpumask, frame_cnt, skip_ref, skip_dis;
    std::string precision, aom_ctc, nflx_ctc, backend, gpu, readers, dis_list, align, scale, scaler, decode,
        decoders;
    std::vector<std::string> features, models;
    bool xml = false, json = false, csv = false, sub = false, version = false;  // NOLINT: bound to flags

    app.add_option("-r,--reference", ref_path, "reference video (.y4m, .yuv, or a container)");
    app.add_option("-d,--distorted", dis_paths, "distorted video (repeat: several encodes of one reference)");
    app.add_option("-w,--width", w, "raw input width");
    app.add_option("-h,--height", h, "raw input height");
    app.add_option("-p,--pixel_format", pix, "raw input layout: 420, 422, 444 (or 400)");
    app.add_option("-b,--bitdepth", bpc, "raw input bit depth: 8..16");
    app.add_option("-m,--model", models, "model: version=...|path=...[:name=...:disable_clip:enable_transform:extractor.option=value]");
    app.add_option("--feature", features, "feature: name[=option=value:option=value...]");
    app.add_option("-o,--output", out.outputs, "result file (one per -d)");
    app.add_option("--distorted_list", dis_list,
                   "file of distorted inputs, one per line: PATH [OUTPUT] (\"quoted\" where blanks; # comments); adds to -d/-o");
    app.add_flag("--xml", xml, "XML result file (default)");
    app.add_flag("--json", json, "JSON result file");
    app.add_flag("--csv", csv, "CSV result file");
    app.add_flag("--sub", sub, "SUB result file");
    app.add_option("--threads", threads, "worker threads (0: CPU features on the calling thread; GPU runs still settle "
                   "VMAF v1's finishes on a quarter of the cores, at most 4)");
    app.add_option("--subsample", subsample, "score every Nth frame");
    app.add_option("--cpumask", cpumask, "disable CPU instruction sets as libvmaf (4 SSE4.1, 8 AVX2, 16 AVX-512, -1 all SIMD); scores never change");
    app.add_option("--gpumask", gpumask, "non-zero: run every feature on the CPU (as libvmaf)");
    app.add_option("--frame_cnt", frame_cnt, "score at most N frames");
    app.add_option("--frame_skip_ref", skip_ref, "skip the first N reference frames");
    app.add_option("--frame_skip_dist", skip_dis, "skip the first N distorted frames");
    app.add_option("--aom_ctc", aom_ctc, "AOM CTC preset v1.0 .. v7.0");
    app.add_option("--nflx_ctc", nflx_ctc, "Netflix CTC preset v1.0");
    app.add_flag("-n,--no_prediction", no_prediction, "features only, no model");
    app.add_flag("-q,--quiet", out.quiet, "no progress or summary on the terminal");
    app.add_flag("-v,--version", version, "print the version and exit");
    app.add_option("--precision", precision, "number format: N decimals (0..17) or max (%.17g)");
    app.add_option("--backend", backend,
                   "cpu, cuda, or auto (default: each feature on its GPU twin if a GPU is present), then per "
                   "feature: auto,psnr_hvs=cpu");
    app.add_option("--gpu", gpu,
                   "CUDA device index (default 0); with --batch also all or a list (0,1,...): jobs spread over "
                   "those GPUs, --batch-jobs on each");
    app.add_option("--decode", decode,
                   "compressed inputs: auto (default: NVDEC where the GPU decodes the codec and every feature runs "
                   "there, shared with CPU decoders when several inputs decode), cpu, or nvdec; or one per input, "
                   "the reference first: cpu,nvdec");
    app.add_option("--decoders", decoders,
                   "decoders per compressed input, each on its own stretches of the stream between random-access "
                   "points (default 0: NVDEC sessions shared by the GPU's inputs, CPU decoders of 4 threads; 1: "
                   "one decoder)");
    app.add_flag("--profile", cfg.profile, "print where GPU frame time goes");
    app.add_option("--readers", readers,
                   "reader threads for raw inputs on the GPU path (default: cores - 2, at most 12; at most 10 for "
                   "models that settle on workers below 4K)");
    app.add_flag("--verbose", out.verbose, "print which backend computes each feature, where each input decodes, and FFmpeg's warnings");
    app.add_flag("--progress", out.progress,
                 "print progress lines (frames, fps, ETA) on stderr even when it is not a terminal");
    app.add_option("--html", out.html, "also write a self-contained HTML report with per-frame plots");
    app.add_flag("--stats", out.stats,
                 "print percentiles, standard deviation and worst frames per metric; add them to JSON results");
    CLI::Option* align_opt =
        app.add_option("--align", align, "find each distorted input's frame offset within +-N frames (default 30) "
                                          "and score with it applied")
            ->expected(0, 1);
    CLI::Option* scale_opt =
        app.add_option("--scale", scale,
                       "inputs of different sizes: ref (default: the distorted to the reference's size), model "
                       "(every input to the model's resolution) or WxH")
            ->expected(0, 1);
    app.add_option("--scaler", scaler, "libswscale algorithm for --scale (default bicubic, as ffmpeg's scale filter)");
    for (const CliExtras::Option& o : extras.options) app.add_option(o.flag, *o.value, o.help);
    std::string batch_jobs;
    app.add_option("--batch", out.batch,
                   "score many jobs in one process: a file of JSON lines (- for standard input), one job per line, "
                   "keys the long flag names, e.g. {\"reference\": \"r.y4m\", \"distorted\": [\"a.mp4\"], "
                   "\"output\": [\"a.json\"], \"json\": true}; the other flags given are every job's defaults "
                   "(docs/cli.md)");
    app.add_option("--batch-summary", out.batch_summary,
                   "with --batch: a JSON-lines file of every job's pooled scores, frames, wall time and error");
    app.add_option("--batch-jobs", batch_jobs,
                   "with --batch: jobs scored at once (default 0: 2 on a GPU, else as many as the cores hold)");

    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out.help = app.help();
      return out;
    } catch (const CLI::ParseError& e) {
      std::string msg = e.what();
      for (char& c : msg)
        if (c == '\n') c = ' ';
      fail(msg);
    }
    if (version) {
      out.version = true;
      return out;
    }
    // --gpu all or 0,1,...: several GPUs, for --batch only.
    const bool spread = gpu == "all" || gpu.find(',') != std::string::npos;
    if (out.batch.empty()) {
      if (!out.batch_summary.empty() || !batch_jobs.empty()) fail("--batch-summary and --batch-jobs need --batch");
    } else {
      if (!batch_jobs.empty()) out.batch_jobs = parse_unsigned("--batch-jobs", batch_jobs, 0, 64);
      if (gpu == "all") {
        // No device: device 0, where each job finds none (auto: the CPU).
        for (unsigned d = 0; d < std::max(1u, gpu_count()); ++d) out.batch_gpus.push_back(static_cast<int>(d));
      } else if (spread) {
        for (size_t at = 0;;) {
          const size_t end = gpu.find(',', at);
          out.batch_gpus.push_back(
              static_cast<int>(parse_unsigned("--gpu", gpu.substr(at, end == std::string::npos ? end : end - at), 0, 1023)));
          if (end == std::string::npos) break;
          at = end + 1;
        }
      }
      for (const CLI::Option* o : app.parse_order()) {
        const std::string name = o->get_lnames().front();
        if (name.starts_with("batch") || (spread && name == "gpu")) continue;
        if (o->get_expected_max() == 0) {
          out.batch_defaults.push_back({name, std::nullopt});
          continue;
        }
        // parse_order() lists an option once per occurrence; results() holds
        // every occurrence's value in order.
        size_t seen = 0;
        for (const CliFlag& f : out.batch_defaults) seen += f.name == name;
        const CLI::results_t& values = o->results();
        if (seen < values.size() && !values[seen].empty()) out.batch_defaults.push_back({name, values[seen]});
        else out.batch_defaults.push_back({name, std::nullopt});
      }
      return out;
    }
    if (ref_path.empty()) fail("the reference (-r/--reference) is required");
    if (!dis_list.empty()) {
      std::error_code ec;
      if (std::filesystem::is_directory(dis_list, ec)) fail("--distorted_list " + dis_list + ": is a directory");
      std::ifstream in(dis_list);
      if (!in) fail("--distorted_list: cannot read " + dis_list);
      // Bounded: a list is paths, one per line (not /dev/zero).
      constexpr size_t kMaxList = 1 << 20, kMaxLine = 4096;
      std::string line;
      size_t read = 0;
      int n = 0, line_no = 0;
      bool outputs = false;
      while (in) {
        line.clear();
        char c;
        while (in.get(c) && c != '\n') {
          if (line.size() == kMaxLine || read++ > kMaxList)
            fail("--distorted_list " + dis_list + ": not a list of paths (a line above 4096 bytes or a file above 1 MiB)");
          line.push_back(c);
        }
        if (read++ > kMaxList)
          fail("--distorted_list " + dis_list + ": not a list of paths (a line above 4096 bytes or a file above 1 MiB)");
        if (!in && line.empty()) break;
        ++line_no;
        const std::optional<std::vector<std::string>> fields = list_fields(line);
        const std::string where = "--distorted_list " + dis_list + " line " + std::to_string(line_no) + ": ";
        if (!fields) fail(where + "a quote is not closed");
        if (fields->empty()) continue;
        if (fields->size() > 2 || fields->front().empty())
          fail(where + "not PATH [OUTPUT] (quote a path with blanks: \"my clip.mp4\")");
        const std::string& path = (*fields)[0];
        const std::string output = fields->size() > 1 ? (*fields)[1] : "";
        if (n++ == 0) outputs = !output.empty();
        if (outputs != !output.empty())
          fail("--distorted_list " + dis_list + ": give an output on every line or on none");
        dis_paths.push_back(path);
        if (!output.empty()) out.outputs.push_back(output);
      }
    }
    if (dis_paths.empty() && !dis_list.empty()) fail("--distorted_list " + dis_list + ": lists no input");
    if (dis_paths.empty()) fail("the distorted video (-d/--distorted) is required");
    if (!out.outputs.empty() && out.outputs.size() != dis_paths.size())
      fail(std::to_string(dis_paths.size()) + " distorted inputs but " + std::to_string(out.outputs.size()) +
           " outputs: give one -o per -d (or none)");

    std::optional<RawParams> raw_params;
    const bool raw = !w.empty() || !h.empty() || !pix.empty() || !bpc.empty();
    if (raw) {
      if (w.empty() || h.empty() || pix.empty() || bpc.empty())
        fail("raw input needs all of -w/--width, -h/--height, -p/--pixel_format, -b/--bitdepth");
      RawParams p;
      p.w = static_cast<int>(parse_unsigned("-w/--width", w, 1, kMaxPictureSize));
      p.h = static_cast<int>(parse_unsigned("-h/--height", h, 1, kMaxPictureSize));
      const std::optional<PixFmt> fmt = parse_pix_fmt(pix);
      if (!fmt) fail("invalid argument '" + pix + "' for -p/--pixel_format; should be 420, 422, 444 or 400");
      p.fmt = *fmt;
      p.bpc = static_cast<int>(parse_unsigned("-b/--bitdepth", bpc, 8, 16));
      raw_params = p;
    }
    out.reference = InputFile{ref_path, raw_params};
    for (const std::string& d : dis_paths) out.distorted.push_back(InputFile{d, raw_params});
    cfg.distorted = static_cast<unsigned>(dis_paths.size());
    if (!threads.empty()) cfg.threads = parse_unsigned("--threads", threads, 0, kMaxThreads);
    if (!subsample.empty()) cfg.subsample = parse_unsigned("--subsample", subsample, 0, UINT32_MAX);
    if (!cpumask.empty()) cfg.cpumask = cpumask == "-1" ? ~uint64_t{0} : parse_count("--cpumask", cpumask, 0, UINT64_MAX);
    // libvmaf: a non-zero gpumask keeps features off the GPU.
    if (!gpumask.empty() && parse_count("--gpumask", gpumask, 0, UINT64_MAX) != 0) cfg.backend = Backend::kCpu;
    if (!backend.empty()) {
      auto b = parse_backend_choice(backend);
      if (!b.ok()) fail(b.status().message());
      cfg.backend = b->backend;
      cfg.feature_backends = b->per_feature;
    }
    if (spread)
      fail("--gpu " + gpu + ": a list of GPUs spreads --batch jobs; one run takes one index");
    if (!gpu.empty()) cfg.gpu = static_cast<int>(parse_unsigned("--gpu", gpu, 0, 1023));
    if (!readers.empty()) cfg.readers = parse_unsigned("--readers", readers, 0, 256);
    if (!decode.empty()) {
      auto d = parse_decode(decode);
      if (!d.ok()) fail(d.status().message());
      cfg.decode = std::move(*d);
    }
    if (!decoders.empty()) cfg.decoders = parse_unsigned("--decoders", decoders, 0, 64);
    if (align_opt->count() > 0)
      cfg.align = align.empty() ? kDefaultAlignRange : parse_unsigned("--align", align, 1, 10000);
    if (scale_opt->count() > 0) {
      auto s = parse_scaling(scale);
      if (!s.ok()) fail("--scale: " + s.status().message());
      cfg.scaling = *s;
    }
    if (!scaler.empty()) {
      if (scale_opt->count() == 0) fail("--scaler needs --scale");
      cfg.scaling.scaler = scaler;
    }
    if (!frame_cnt.empty()) out.limits.frame_cnt = parse_unsigned("--frame_cnt", frame_cnt, 0, UINT32_MAX);
    if (!skip_ref.empty()) out.limits.skip_ref = parse_unsigned("--frame_skip_ref", skip_ref, 0, UINT32_MAX);
    if (!skip_dis.empty()) out.limits.skip_dis = parse_unsigned("--frame_skip_dist", skip_dis, 0, UINT32_MAX);
    if (!precision.empty()) {
      auto p = parse_precision(precision);
      if (!p.ok()) fail(p.status().message());
      out.precision = *p;
    }
    // libvmaf: the last of --xml/--json/--csv/--sub wins.
    for (const CLI::Option* o : app.parse_order()) {
      if (o->check_lname("xml")) out.output_format = OutputFormat::kXml;
      if (o->check_lname("json")) out.output_format = OutputFormat::kJson;
      if (o->check_lname("csv")) out.output_format = OutputFormat::kCsv;
      if (o->check_lname("sub")) out.output_format = OutputFormat::kSub;
    }

    for (int i = 0; i < argc; ++i) out.command_line.push_back(argv[i]);
    cfg.stats = out.stats;
    if (!no_prediction) cfg.models = models;
    cfg.features = features;
    for (const auto& [preset, preset_version] : {std::pair{"aom_ctc", &aom_ctc}, std::pair{"nflx_ctc", &nflx_ctc}}) {
      if (preset_version->empty()) continue;
      const Status st = apply_preset(preset, *preset_version, cfg);
      if (!st.ok()) fail(st.message());
    }
    if (no_prediction) cfg.models.clear();
    if (cfg.models.empty() && !no_prediction) cfg.models.push_back("version=vmaf_v0.6.1");
  } catch (const ArgError& e) {
    return Status(Code::kInvalidArgument, e.message);
  }
  return out;
}

std::optional<std::string> file_identity(const std::string& path) {
  if (path == "-") return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

namespace {

// Refused before scoring: two outputs that are one file, an output that is
// an input, several inputs reading standard input.
Status check_paths(const CliRequest& req) {
  struct Named {
    std::string flag, path;
    std::optional<std::string> id;
  };
  std::vector<Named> inputs{{"-r", req.reference.path, file_identity(req.reference.path)}};
  for (const InputFile& d : req.distorted) inputs.push_back({"-d", d.path, file_identity(d.path)});
  std::vector<Named> outputs;
  for (const std::string& o : req.outputs) outputs.push_back({"-o", o, file_identity(o)});
  if (!req.html.empty()) outputs.push_back({"--html", req.html, file_identity(req.html)});
  const Named* piped = nullptr;
  for (const Named& in : inputs) {
    if (in.path != "-") continue;
    if (piped)
      return Status(Code::kInvalidArgument, piped->flag + " - and " + in.flag +
                                                " - both read standard input: give at most one input as '-'");
    piped = &in;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Named& out = outputs[k];
    if (!out.id) continue;
    for (const Named& in : inputs)
      if (in.id == out.id)
        return Status(Code::kInvalidArgument, out.flag + " " + out.path + " would overwrite the input " + in.flag +
                                                  " " + in.path);
    for (size_t j = 0; j < k; ++j)
      if (outputs[j].id == out.id)
        return Status(Code::kInvalidArgument, outputs[j].flag + " " + outputs[j].path + " and " + out.flag + " " +
                                                  out.path + " are the same file: give each output its own");
  }
  return ok_status();
}

}  // namespace

Status check_request(const CliRequest& req) {
  if (Status st = check_paths(req); !st.ok()) return st;
  for (const std::string& out : req.outputs) {
    const Status st = check_output_path(out);
    if (!st.ok()) return st;
  }
  if (!req.html.empty()) {
    Status st = check_output_path(req.html);
    if (st.ok()) st = html_report_available();
    if (!st.ok()) return Status(st.code(), "--html: " + st.message());
  }
  return ok_status();
}

Status run_cli(const CliRequest& req, std::unique_ptr<Scorer>* scorer) {
  if (Status st = check_request(req); !st.ok()) return st;
  auto s = Scorer::create(req.config);
  if (!s.ok()) return s.status();
  *scorer = std::move(*s);
  const Status st = (*scorer)->score(req.reference, req.distorted, req.limits);
  if (!st.ok()) return st;
  if (Status w = write_outputs(req, **scorer); !w.ok()) return w;
  if (!req.outputs.empty() || !req.html.empty()) mark_startup("outputs written");
  return ok_status();
}

Status write_outputs(const CliRequest& req, const Scorer& scorer) {
  // Every output written before any is put in place: a run that fails
  // leaves none.
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t k = 0; k < req.outputs.size(); ++k)
    files.emplace_back(req.outputs[k], scorer.format(req.output_format, unsigned(k), req.precision));
  if (!req.html.empty()) {
    HtmlReport report;
    report.command_line = req.command_line;
    for (const InputFile& d : req.distorted) report.inputs.push_back(d.path);
    report.reference = req.reference.path;
    auto html = scorer.format_html(report);
    if (!html.ok()) return html.status();
    files.emplace_back(req.html, std::move(*html));
  }
  return write_files(files);
}

}  // namespace twinmaf
