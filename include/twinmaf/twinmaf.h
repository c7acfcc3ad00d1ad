// twinmaf's C++ API: VMAF, its features and libvmaf's models, every value
// equal to Netflix libvmaf's (f85a8536) bit for bit, on the CPU and on NVIDIA
// GPUs. The command line, the C API (libvmaf's) and the Python module are
// built on this header alone.
//
// A Scorer is configured once (models, features, backends, threads), then
// fed one of two ways:
//   - whole inputs: score(reference, {distorted...}) reads raw YUV, Y4M or any
//     container FFmpeg reads, every distorted input against one reference;
//   - pictures: open(format), then push(reference, {distorted...}) per frame
//     (host pictures from new_picture(), pinned when a GPU uploads them),
//     then flush().
// Then it holds per-frame scores, pooled scores and libvmaf's result files.
//
//   twinmaf::ScorerConfig cfg;
//   cfg.models = {"version=vmaf_v0.6.1"};
//   cfg.features = {"psnr"};
//   auto scorer = twinmaf::Scorer::create(cfg);
//   if (!scorer.ok()) ...;
//   twinmaf::Status st = (*scorer)->score({"ref.y4m"}, {{"dis.mp4"}});
//   double vmaf = (*scorer)->pooled("vmaf")->mean;
//   st = (*scorer)->write("out.json", twinmaf::OutputFormat::kJson);
//
// Errors are Status values with one line for the user; nothing throws. A
// Scorer runs one job: score() or open()/push()/flush(), once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "twinmaf/picture.h"
#include "twinmaf/status.h"
#include "twinmaf/types.h"

namespace twinmaf {

// The library version ("0.1.0").
const char* version();

// FFmpeg's own warnings and errors on stderr ("twinmaf: ffmpeg: [component]
// text"; the CLI's --verbose), process-wide; by default not printed. Either
// way an error FFmpeg reports while reading or decoding an input fails that
// input's read with its text: libavcodec would conceal it.
void set_ffmpeg_log(bool print);

struct Progress {
  unsigned frames = 0;  // frames scored so far (in every distorted input)
  double seconds = 0;   // since the first frame was requested
  // Frames the run is expected to score (0: unknown, e.g. pushed pictures or
  // a pipe): from the inputs' sizes (raw, Y4M) or their containers' counts or
  // durations (an estimate), after the skips and frame_cnt.
  unsigned total = 0;
};

// score(): what to do with inputs of different sizes. kOff: an error (as
// libvmaf). kToReference: each distorted input scaled to the reference's size;
// kToModel: every input scaled to the first model's viewing resolution
// (1920x1080, 3840x2160 for the 4K models), keeping the reference's aspect
// ratio (even sizes); kToSize: every input scaled to w x h. Inputs already
// at the target size are not touched. Scaling is libswscale's, as FFmpeg's
// `-vf scale=W:H:flags=<scaler>`, so scores equal those of files scaled by
// that filter.
struct Scaling {
  enum class Mode { kOff, kToReference, kToModel, kToSize };
  Mode mode = Mode::kOff;
  int w = 0, h = 0;  // kToSize
  // libswscale's algorithm, by FFmpeg's flag name: bicubic (the ffmpeg
  // command line's default, and what Netflix recommends for VMAF), bilinear,
  // lanczos, spline, area, neighbor, gauss, sinc, bicublin, fast_bilinear.
  std::string scaler = "bicubic";
};

// "ref" (or empty), "model", or "WxH" (1..32768 each).
Result<Scaling> parse_scaling(std::string_view text);

// score() with ScorerConfig::align: each distorted input's offset (see
// RunInfo::alignment).
struct Alignment {
  std::string input;       // the distorted input's path
  int offset = 0;          // distorted frame j shows reference frame j + offset
  unsigned skip_ref = 0;   // frames skipped from the start to apply it (on top of RunLimits')
  unsigned skip_dis = 0;
  double psnr = 0;         // luma PSNR (dB) of the sampled frames at `offset` (inf: identical)
  double psnr_zero = 0;    // ... without an offset
  bool ambiguous = false;  // another offset matches as well (e.g. a still picture)
};

// What scaling did to one input (RunInfo::scaled).
struct ScaledInput {
  std::string input;
  int from_w = 0, from_h = 0, to_w = 0, to_h = 0;
  std::string scaler;
};

struct ScorerConfig {
  // libvmaf --model texts, in order: "version=vmaf_v0.6.1",
  // "path=m.json:name=m:disable_clip", with ":<extractor>.<option>=<value>"
  // overloads. None: features only (no prediction).
  std::vector<std::string> models;
  // libvmaf --feature texts: "psnr", "psnr=enable_chroma=false:enable_mse=true".
  std::vector<std::string> features;
  unsigned threads = 0;    // worker threads; 0: the calling thread only
  // libvmaf's cpumask: a set bit disables an instruction set for the CPU
  // kernels (x86: 1 SSE2, 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512
  // ICL; any other bit, e.g. ~0, every SIMD path). Scores never change with
  // it, only speed. Process-wide, like libvmaf's (docs/simd.md).
  uint64_t cpumask = 0;
  unsigned subsample = 1;  // score every Nth frame (0 and 1: every frame)
  Backend backend = Backend::kAuto;
  // Per feature (extractor name, "vif"), overriding `backend`.
  std::vector<std::pair<std::string, Backend>> feature_backends;
  int gpu = 0;              // CUDA device index
  // A CUcontext of the caller's: every GPU call of the scorer runs in it (its
  // device, not `gpu`), so the caller's device pictures can be pushed
  // (push_device) without leaving the device. Null: the device's primary
  // context.
  void* cuda_context = nullptr;
  unsigned readers = 0;     // raw-input reader threads on the GPU path (0: auto)
  // Where compressed inputs are decoded: one choice for every input, or one
  // per input (the reference first, then each distorted input).
  std::vector<Decode> decode{Decode::kAuto};
  // Decoders per compressed input, each decoding its own stretches of the
  // stream between random-access points (H.264 IDR, HEVC IDR/CRA, VP9 key
  // frames) at once; 0: the loop plan's choice (NVDEC sessions shared by the
  // GPU's inputs, CPU decoders of 4 threads); 1: one decoder.
  unsigned decoders = 0;
  bool profile = false;     // per-stage timings in report().profile
  unsigned distorted = 1;   // distorted inputs scored against one reference
  // libvmaf's common_bitdepth (--aom_ctc v6.0 and later): score() accepts
  // inputs of different bit depths and reads them all at the highest, lower
  // depths shifted up (libvmaf misreads such files; docs/cli.md).
  bool common_bitdepth = false;
  // score() only: inputs of different sizes (default: an error).
  Scaling scaling;
  // score() only: search each distorted input's frame offset within
  // [-align, align] frames (0: no search) and score with it applied, as
  // RunLimits::skip_ref / skip_dis would. Reads the first align + 30 frames
  // of every input once more, so inputs must be files (not pipes).
  unsigned align = 0;
  // JSON result files also hold a "statistics" key (stats() of every metric).
  bool stats = false;
  // Called after every frame is scored in every distorted input, in frame
  // order, on the thread that finishes frames (not the caller's when
  // threads > 0). Keep it short.
  std::function<void(const Progress&)> progress;
};

// Applies libvmaf's --aom_ctc (v1.0 .. v7.0) or --nflx_ctc (v1.0) preset
// (`preset` "aom_ctc" or "nflx_ctc"): its models and features, a feature
// replacing an earlier one of the same name.
Status apply_preset(std::string_view preset, std::string_view version, ScorerConfig& cfg);

// A --feature text's extractor name is known to this build.
bool has_feature(std::string_view name);

// Whether a result file can be written at `path` (not a directory, in an
// existing writable directory), checked without creating it: a run can
// refuse a bad output before it scores.
Status check_output_path(const std::string& path);

// The process's start-up trace (what --profile prints as "startup"): off
// until enabled; every step of scoring marks itself (models loaded, inputs
// opened, CUDA context, twins, first frame, ...), callers may add steps.
void enable_startup_trace();
void mark_startup(std::string_view step);
std::vector<std::string> startup_trace();

// An input file: Y4M (by its signature), raw YUV with `raw`, or a container.
struct InputFile {
  std::string path;
  std::optional<RawParams> raw;
};

// A picture in CUDA device memory (e.g. what NVDEC decoded): plane p starts
// at planes[p], rows pitch[p] bytes apart, in the stored layout of
// twinmaf/picture.h (8-bit samples as bytes, 9..16-bit as uint16).
struct DevicePlanes {
  const void* planes[3] = {};
  std::size_t pitch[3] = {};
};

// Pooled values of one metric over the scored frames (libvmaf's
// pooled_metrics).
struct Pooled {
  double min = 0, max = 0, mean = 0, harmonic_mean = 0;
};

// The spread of one metric over the scored frames (values that are not
// finite left out): mean, population standard deviation, percentiles
// (position p/100 * (n-1) of the sorted values, linearly interpolated), and
// the kStatsWorstFrames worst frames (index, value), worst first: lowest
// values first, highest for metrics where lower is better (cambi, mse_*,
// speed_*); none for motion and moments, which have no better direction.
inline constexpr unsigned kStatsWorstFrames = 10;
struct Stats {
  unsigned frames = 0;      // the frames counted
  unsigned non_finite = 0;  // scored frames whose value is not finite, left out (--stats says how many)
  double mean = 0, stddev = 0;
  double p1 = 0, p5 = 0, p50 = 0, p95 = 0, p99 = 0;
  std::vector<std::pair<unsigned, double>> worst;
};

// What an HTML report shows besides the scores.
struct HtmlReport {
  std::vector<std::string> command_line;  // argv, shown shell-quoted
  std::string reference;
  // Names of the distorted inputs (plot legends); default: the paths given
  // to score(), else "input k".
  std::vector<std::string> inputs;
};

// Output files whole or not at all: each text written to a temporary file
// beside its path, then all renamed into place; an error leaves every path
// as it was (standard output "-" and devices are written in place).
Status write_files(const std::vector<std::pair<std::string, std::string>>& files);

// Whether write_html() can work: the plot library it embeds is installed.
Status html_report_available();
// One pooling method of libvmaf (vmaf_feature_score_pooled).
enum class Pooling { kMin, kMax, kMean, kHarmonicMean };

// Feature options as a libvmaf dictionary (VmafFeatureDictionary) holds
// them: (option, text) in order, a repeated option overwriting the earlier
// text. Texts are normalised as libvmaf's vmaf_feature_dictionary_set does: a
// text that reads as one number (nothing after it but blanks) becomes that
// number in single precision printed with "%g" ("1.0" -> "1", "0.123456789"
// -> "0.123457"); any other text is kept ("1.out" stays "1.out").
using OptionList = std::vector<std::pair<std::string, std::string>>;

// How a model is loaded (libvmaf's VmafModelConfig).
struct ModelOptions {
  std::string name = "vmaf";      // the metric its scores are stored under
  bool disable_clip = false;      // VMAF_MODEL_FLAG_DISABLE_CLIP
  bool enable_transform = false;  // VMAF_MODEL_FLAG_ENABLE_TRANSFORM
};

// Bootstrap statistics of a model collection at one frame (libvmaf's
// VmafModelCollectionScore), stored as <name>_bagging, <name>_stddev,
// <name>_ci_p95_lo and <name>_ci_p95_hi.
struct CollectionScore {
  double bagging = 0, stddev = 0, ci_p95_lo = 0, ci_p95_hi = 0;
};

// A model loaded on its own, apart from any Scorer (libvmaf's VmafModel, or
// the members of a VmafModelCollection): load it, overload its features'
// options, register its features with Scorer::use_model(), predict with
// Scorer::predict() / predict_collection(). Copies share one model.
class ModelHandle {
 public:
  // A single model: built in by version ("vmaf_v0.6.1") or a JSON file. A
  // collection is refused (libvmaf's vmaf_model_load does too).
  static Result<ModelHandle> load(std::string_view version, const ModelOptions& options = {});
  static Result<ModelHandle> load_file(const std::string& path, const ModelOptions& options = {});
  // A bootstrap collection ("vmaf_b_v0.6.3"): first its main model (key "0",
  // scored under options.name), then its members (keys "1".., scored under
  // "<name>_0001".., their statistics under "<name>_bagging"..).
  static Result<std::pair<ModelHandle, ModelHandle>> load_collection(std::string_view version,
                                                                     const ModelOptions& options = {});
  static Result<std::pair<ModelHandle, ModelHandle>> load_collection_file(const std::string& path,
                                                                          const ModelOptions& options = {});

  // The metric the scores are stored under (a collection: the prefix of its
  // statistics).
  const std::string& name() const;
  bool is_collection() const;
  // libvmaf's vmaf_model_feature_overload: merges `options` into the option
  // dictionary of every model feature that the extractor named `extractor`
  // provides ("adm": {"adm_enhn_gain_limit", "1"}); features of other
  // extractors keep theirs.
  Status overload(std::string_view extractor, const OptionList& options);

  struct Impl;  // the library's (src/api)
  explicit ModelHandle(std::shared_ptr<Impl> impl);

 private:
  friend class Scorer;
  std::shared_ptr<Impl> impl_;
};

// A model's pooled result as libvmaf's CLI prints it.
struct ModelSummary {
  std::string label;  // model version or path
  std::string text;   // "vmaf_v0.6.1: 95.024882" (collections: ci and stddev too)
};

struct RunInfo {
  unsigned frames = 0;                // frames scored (the longest distorted input's)
  // Per distorted input: its frames scored. Each input is scored over its own
  // length (the shorter of it and the reference), as a job of its own would.
  std::vector<unsigned> lane_frames;
  std::vector<InputDecoding> decoding;  // the inputs that decode, reference first
  double seconds = 0;                 // the whole job
  double loop_seconds = 0;            // the frame loop: first frame read to last finished
  std::vector<std::string> warnings;  // e.g. an input ended early
  std::vector<std::string> profile;   // --profile lines
  std::string device;                 // the GPU used, if any
  std::string simd;                   // the CPU kernels' SIMD target ("AVX3", "scalar")
  // Which backend computed each feature ("cpu", "cuda").
  std::vector<std::pair<std::string, std::string>> backends;
  std::vector<Alignment> alignment;  // per distorted input, with ScorerConfig::align
  std::vector<ScaledInput> scaled;   // the inputs that were scaled
  int width = 0, height = 0;         // the scored picture size
};

class Scorer {
 public:
  // Parses and checks the configuration: unknown features, bad options, bad
  // or missing models are errors here.
  static Result<std::unique_ptr<Scorer>> create(ScorerConfig cfg);
  ~Scorer();
  Scorer(const Scorer&) = delete;
  Scorer& operator=(const Scorer&) = delete;

  // From any thread while this Scorer works: the running score(),
  // compute_segment() or pushed-picture loop stops at the next frame and
  // fails with Code::kCancelled (the only call that may overlap another).
  void cancel();

  // Whole inputs: `distorted` holds cfg.distorted files.
  Status score(const InputFile& reference, const std::vector<InputFile>& distorted, const RunLimits& limits = {});

  // Pictures: the format of every picture to come (checks every feature
  // supports it; decides each feature's backend).
  Status open(const VideoFormat& format);
  // A picture of the opened format to fill (pinned when a GPU uploads it).
  Result<PicturePtr> new_picture();
  // The next frame: the reference and cfg.distorted pictures of the opened
  // format (any allocator; new_picture() avoids a copy into pinned memory).
  // Blocks while the frame loop is full; returns an earlier frame's error.
  Status push(PicturePtr reference, std::vector<PicturePtr> distorted);
  // The next frame from device memory (CUDA builds), called with the
  // scorer's context current (cuda_context, or the primary context of
  // `gpu`): once the work queued on `stream` (a cudaStream_t of that context;
  // null: its legacy stream) is done, the planes the features read are copied
  // on the device into device pictures the frame loop uploads from when every
  // feature runs on the GPU, else into host pictures of new_picture(). The
  // caller may reuse its buffers when this returns.
  Status push_device(const DevicePlanes& reference, const std::vector<DevicePlanes>& distorted, void* stream = nullptr);
  // After the last push: waits for every frame and finishes the scores.
  Status flush();

  // Distributed runs (docs/python.md): score() split into segments of frames
  // computed anywhere, finished in one place, with exactly score()'s results.
  //
  // The terms (the features' per-frame intermediates, before any score) of
  // frames [first, first + count) of whole inputs, frame numbers counted
  // after `limits`' skips, as bytes for finish_segments() of a Scorer of the
  // same configuration and build. Reads the frames before `first` that
  // history and temporal features need. A segment of fewer than `count`
  // frames (none, past the end) says the inputs end there.
  Result<std::string> compute_segment(const InputFile& reference, const std::vector<InputFile>& distorted,
                                      unsigned first, unsigned count, const RunLimits& limits = {});
  // Every segment of one run, in frame order from frame 0 up to and including
  // one that ends short: finishes, flushes, predicts and pools as score().
  Status finish_segments(const std::vector<std::string_view>& segments);
  // Registration after create() (libvmaf's vmaf_use_feature and
  // vmaf_use_features_from_model[_collection]): before open() or score(),
  // after cfg's models and features, in call order; a feature registered
  // twice with the same feature-param options is computed once. A model
  // registered here only decides features: its scores are predicted on
  // demand (predict()), not at flush().
  Status use_feature(std::string_view name, const OptionList& options = {});
  Status use_model(const ModelHandle& model);

  // libvmaf's feature collector: values under their stored names
  // ("VMAF_integer_feature_adm2_score", a model's name; no aliases), read and
  // written whenever no pushed pictures are being scored, i.e. before open()
  // or score() and after flush() or score(). Scores imported while pictures
  // are scored are stored when the frame loop ends, in call order.
  //
  // A value the caller computed (libvmaf's vmaf_import_feature_score); a
  // frame holds one value per name.
  Status import_score(std::string_view name, unsigned frame, double value, unsigned lane = 0);
  std::optional<double> stored_score(std::string_view name, unsigned frame, unsigned lane = 0) const;
  // libvmaf's vmaf_feature_score_pooled over frames first..last (those the
  // subsample skips left out): an error if one of them has no value.
  Result<double> stored_pooled(std::string_view name, Pooling method, unsigned first, unsigned last,
                               unsigned lane = 0) const;
  // libvmaf's vmaf_score_at_index: the score stored under model.name() at
  // `frame`, else the model's prediction from the stored features, stored.
  Result<double> predict(const ModelHandle& model, unsigned frame, unsigned lane = 0);
  // The same for a collection's members (libvmaf's
  // vmaf_score_at_index_model_collection): each member's score and the
  // statistics are stored; a frame already predicted gives its stored
  // statistics.
  Result<CollectionScore> predict_collection(const ModelHandle& members, unsigned frame, unsigned lane = 0);

  // Results, after score() or flush(); `lane` selects the distorted input.
  unsigned frames(unsigned lane = 0) const;  // the frames scored in distorted input `lane`
  // Metric names in libvmaf's output order and spelling (its JSON "metrics"),
  // model scores included.
  std::vector<std::string> metrics(unsigned lane = 0) const;
  // The value of `metric` at `frame`, if it was computed there.
  std::optional<double> score(std::string_view metric, unsigned frame, unsigned lane = 0) const;
  // Pooled over the scored frames (subsampled ones excluded, as libvmaf).
  Result<Pooled> pooled(std::string_view metric, unsigned lane = 0) const;
  // Whole-sequence values (apsnr_y, ...), in output order.
  std::vector<std::pair<std::string, double>> aggregates(unsigned lane = 0) const;
  // Each model's pooled line as libvmaf's CLI prints it (or, with no model,
  // each metric's mean).
  std::vector<ModelSummary> summary(unsigned lane = 0) const;
  // libvmaf's result file of one distorted input (like the collector, written
  // whenever no pushed pictures are being scored).
  // write() and write_html() put a file in place whole or not at all (a
  // temporary file beside it, renamed when written).
  std::string format(OutputFormat format, unsigned lane = 0, Precision precision = {}) const;
  Status write(const std::string& path, OutputFormat format, unsigned lane = 0, Precision precision = {}) const;
  // The spread of `metric` (Stats).
  Result<Stats> stats(std::string_view metric, unsigned lane = 0) const;
  // One self-contained HTML file: per-frame plots of every metric with the
  // distorted inputs overlaid, pooled scores, worst frames, the command line
  // and versions; format_html() gives its text.
  Status write_html(const std::string& path, const HtmlReport& report) const;
  Result<std::string> format_html(const HtmlReport& report) const;
  const RunInfo& info() const;

 private:
  struct Impl;
  explicit Scorer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// CUDA devices visible to this process (0 without a driver or in a build
// without CUDA).
unsigned gpu_count();

// One job of score_many(): what Scorer::create() and score() take.
struct Job {
  ScorerConfig config;
  InputFile reference;
  std::vector<InputFile> distorted;
  RunLimits limits;
};

struct BatchOptions {
  // Jobs scored at once (per GPU with `gpus`), each on a thread of its own;
  // 0: 2 where the first
  // job may use a GPU that is present (one job's reading, decoding and
  // upload overlap another's kernels), else as many as the cores hold jobs
  // of the first job's threads (ScorerConfig::threads, 0 counting as 1).
  unsigned in_flight = 0;
  // Each job as it ends: its index, its scorer (null when create() failed)
  // and its status (an exception a job raised, such as std::bad_alloc, is
  // its kInternal status). Called one job at a time, on a thread of the
  // batch; it must not throw.
  std::function<void(std::size_t job, std::unique_ptr<Scorer> scorer, const Status& status)> done;
  // GPUs the jobs are spread over (CUDA device indexes; an index may repeat
  // to run two engines on one device): `in_flight` jobs at once on each, a
  // job going to the GPU whose worker frees first, its ScorerConfig::gpu
  // replaced. Empty: each job's own ScorerConfig::gpu.
  std::vector<int> gpus;
  // Set from any thread to stop the batch: running jobs end with
  // Code::kCancelled (Scorer::cancel()), jobs not started are reported with
  // it.
  std::shared_ptr<std::atomic<bool>> cancel;
};

// Scores every job in one process: the GPU context and its loaded kernels
// are set up once and reused by later jobs; a job's
// results are exactly those of its own Scorer. A failing job fails alone.
// Returns once every job is reported. ScorerConfig::cpumask applies to the
// whole process: give every job the same.
void score_many(const std::vector<Job>& jobs, const BatchOptions& options);

}  // namespace twinmaf
