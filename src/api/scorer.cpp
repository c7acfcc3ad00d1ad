// twinmaf::Scorer (include/twinmaf/twinmaf.h) on the engine's Session: models
// bound to the registry, inputs opened or pushed, predictions after the run,
// results read from the collectors.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "api/feature_text.h"
#include "api/scorer_impl.h"
#include "core/pooling.h"
#include "io/depth_source.h"
#include "io/source.h"

namespace twinmaf {

const char* version() { return TWINMAF_VERSION; }

bool has_feature(std::string_view name) { return find_feature(name) != nullptr; }

Status check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) TWINMAF_FAIL(kInvalidArgument, "an output path is empty");
  if (fs::is_directory(path, ec)) TWINMAF_FAIL(kIo, "{}: is a directory", path);
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) TWINMAF_FAIL(kIo, "{}: cannot write: no directory {}", path, dir.string());
  if (::access(dir.c_str(), W_OK) != 0) TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    TWINMAF_FAIL(kIo, "{}: cannot write: {}", path, std::strerror(errno));
  return ok_status();
}

namespace {

double pool_metric(const Collector::Column& col, PoolMethod m, unsigned frames, unsigned subsample) {
  return pool(col, m, 0, frames - 1, subsample).value_or(NAN);
}

// How errors name a pushed distorted picture.
std::string pushed_name(size_t lane) { return fmt::format("distorted picture {}", lane); }

}  // namespace

Scorer::Scorer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Scorer::~Scorer() { (void)impl_->end_loop(); }

Result<std::unique_ptr<Scorer>> Scorer::create(ScorerConfig cfg) {
  auto impl = std::make_unique<Impl>();
  if (cfg.distorted == 0) TWINMAF_FAIL(kInvalidArgument, "no distorted input");
  if (cfg.threads > kMaxThreads) TWINMAF_FAIL(kInvalidArgument, "threads: {} is above {}", cfg.threads, kMaxThreads);
  SessionConfig sc;
  sc.threads = cfg.threads;
  sc.subsample = cfg.subsample;
  sc.backend = cfg.backend;
  sc.feature_backends = cfg.feature_backends;
  sc.gpu = cfg.gpu;
  sc.profile = cfg.profile;
  sc.readers = cfg.readers;
  Impl* raw = impl.get();
  if (cfg.progress)
    sc.on_frame = [raw](unsigned index) {
      raw->cfg.progress(Progress{index + 1, std::chrono::duration<double>(Clock::now() - raw->t0).count()});
    };
  impl->session = std::make_unique<Session>(std::move(sc), cfg.distorted);
  // libvmaf's order: the models' features first, then --feature requests.
  for (const std::string& text : cfg.models) {
    TWINMAF_ASSIGN_OR_RETURN(ModelRequest req, parse_model_request(text));
    TWINMAF_ASSIGN_OR_RETURN(LoadedModel model, load_model(req, registry_provider));
    for (const LoadedModel& other : impl->models)
      if (other.main().name() == model.main().name())
        TWINMAF_FAIL(kInvalidArgument, "two models are named '{}'; give each a unique name= in --model",
                     model.main().name());
    TWINMAF_ASSIGN_OR_RETURN(std::vector<FeatureUse> uses, model.bind(registry_provider));
    for (const FeatureUse& use : uses)
      TWINMAF_RETURN_IF_ERROR(impl->session->use_feature_providing(use.provided_name, use.dict));
    impl->labels.push_back(req.label());
    impl->models.push_back(std::move(model));
  }
  for (const std::string& text : cfg.features) {
    TWINMAF_ASSIGN_OR_RETURN(FeatureText f, parse_feature_text(text));
    TWINMAF_RETURN_IF_ERROR(impl->session->use_feature(f.name, f.options));
  }
  impl->cfg = std::move(cfg);
  return std::unique_ptr<Scorer>(new Scorer(std::move(impl)));
}

Status Scorer::Impl::predict() {
  info.frames = report.frames;
  info.warnings = report.warnings;
  info.profile = report.profile;
  info.device = report.device;
  info.loop_seconds = report.loop_seconds;
  for (const Session::Registered& r : session->features())
    info.backends.emplace_back(std::string(r.spec->name), r.backend);
  const unsigned subsample = session->config().subsample;
  for (unsigned l = 0; l < session->lanes(); ++l) {
    Collector& c = session->collector(l);
    // libvmaf scores every model's frames, then every collection's outputs.
    for (unsigned i = 0; i < report.frames; ++i) {
      if (subsample > 1 && i % subsample) continue;
      for (const LoadedModel& m : models) TWINMAF_RETURN_IF_ERROR(m.predict_main(c, i));
      for (const LoadedModel& m : models)
        if (m.is_collection()) TWINMAF_RETURN_IF_ERROR(m.predict_collection(c, i).status());
    }
  }
  info.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  done = true;
  return ok_status();
}

Status Scorer::score(const InputFile& reference, const std::vector<InputFile>& distorted, const RunLimits& limits) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "a Scorer runs one job");
  m.used = true;
  m.t0 = Clock::now();
  if (distorted.size() != m.session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "{} distorted inputs given to a scorer configured for {}", distorted.size(),
                 m.session->lanes());
  TWINMAF_ASSIGN_OR_RETURN(auto ref, open_source(reference.path, reference.raw));
  std::vector<std::unique_ptr<VideoSource>> dis;
  for (const InputFile& f : distorted) {
    TWINMAF_ASSIGN_OR_RETURN(auto d, open_source(f.path, f.raw));
    dis.push_back(std::move(d));
  }
  if (m.cfg.common_bitdepth) {
    int bpc = ref->format().bpc;
    for (const auto& d : dis) bpc = std::max(bpc, d->format().bpc);
    if (ref->format().bpc < bpc) ref = with_bit_depth(std::move(ref), bpc);
    for (auto& d : dis)
      if (d->format().bpc < bpc) d = with_bit_depth(std::move(d), bpc);
  }
  std::vector<VideoSource*> dis_ptrs;
  for (const auto& d : dis) {
    TWINMAF_RETURN_IF_ERROR(check_same_format(*ref, *d));
    dis_ptrs.push_back(d.get());
  }
  m.fmt = ref->format();
  const Status st = m.session->run(*ref, dis_ptrs, limits, &m.report);
  m.info.warnings = m.report.warnings;
  m.info.profile = m.report.profile;
  TWINMAF_RETURN_IF_ERROR(st);
  return m.predict();
}

Status Scorer::open(const VideoFormat& format) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "a Scorer runs one job");
  m.used = true;
  m.t0 = Clock::now();
  TWINMAF_RETURN_IF_ERROR(validate_format(format));
  m.fmt = format;
  TWINMAF_ASSIGN_OR_RETURN(m.plan, m.session->prepare(format));
  m.pool = std::make_unique<PicturePool>(format, m.session->allocator());
  m.feed = std::make_unique<PushFeed>(8);
  m.loop = std::thread([&m] {
    // The error of a frame the device range check flags: push()'s own check
    // on every plane read.
    const auto host_check = [&m](const FrameSet& set) -> Status {
      TWINMAF_RETURN_IF_ERROR(check_sample_range(*set.ref, 0, m.plan.ref_planes, "reference", set.index));
      for (size_t l = 0; l < set.dis.size(); ++l)
        TWINMAF_RETURN_IF_ERROR(check_sample_range(*set.dis[l], 0, m.plan.dis_planes, pushed_name(l), set.index));
      return ok_status();
    };
    m.loop_status = m.session->run(*m.feed, &m.report, host_check);
    m.feed->stop();
  });
  return ok_status();
}

Result<PicturePtr> Scorer::new_picture() {
  if (!impl_->pool) TWINMAF_FAIL(kInvalidArgument, "new_picture() before open()");
  return impl_->pool->acquire();
}

Status Scorer::push(PicturePtr reference, std::vector<PicturePtr> distorted) {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "push() before open()");
  if (distorted.size() != m.session->lanes())
    TWINMAF_FAIL(kInvalidArgument, "push(): {} distorted pictures for a scorer configured for {}", distorted.size(),
                 m.session->lanes());
  FrameSet set;
  set.ref = std::move(reference);
  set.dis = std::move(distorted);
  // The inputs' own checks: format, and (above 8 bits) the sample range of
  // every plane the features read that the device does not check.
  for (size_t k = 0; k <= set.dis.size(); ++k) {
    const Picture* p = k == 0 ? set.ref.get() : set.dis[k - 1].get();
    const std::string name = k == 0 ? "reference" : pushed_name(k - 1);
    if (!p) TWINMAF_FAIL(kInvalidArgument, "push(): the {} is null", name);
    if (!(p->format() == m.fmt))
      TWINMAF_FAIL(kInvalidArgument, "push(): the {} is {}x{} {} {}-bit, the scorer was opened for {}x{} {} {}-bit",
                   name, p->format().w, p->format().h, pix_fmt_name(p->format().fmt), p->format().bpc, m.fmt.w,
                   m.fmt.h, pix_fmt_name(m.fmt.fmt), m.fmt.bpc);
    if (m.fmt.bpc > 8)
      TWINMAF_RETURN_IF_ERROR(check_sample_range(*p, m.plan.host_range_check_from,
                                                 k == 0 ? m.plan.ref_planes : m.plan.dis_planes, name,
                                                 m.pushed));
  }
  ++m.pushed;
  if (!m.feed->push(std::move(set))) {
    const Status imports = m.end_loop();
    if (!m.loop_status.ok()) return m.loop_status;
    return imports.ok() ? Status(Code::kInternal, "push(): the frame loop has stopped") : imports;
  }
  return ok_status();
}

#if !TWINMAF_HAVE_CUDA
Status Scorer::push_device(const DevicePlanes&, const std::vector<DevicePlanes>&, void*) {
  TWINMAF_FAIL(kUnsupported, "push_device(): this build of twinmaf has no CUDA backend");
}
#endif

Status Scorer::Impl::end_loop() {
  if (!loop.joinable()) return ok_status();
  feed->close();
  loop.join();
  Status first;
  for (const Import& i : pending_imports) {
    const Status st = session->collector(i.lane).append(i.name, i.frame, i.value);
    if (first.ok() && !st.ok()) first = st;
  }
  pending_imports.clear();
  return first;
}

Status Scorer::flush() {
  Impl& m = *impl_;
  if (!m.feed) TWINMAF_FAIL(kInvalidArgument, "flush() before open()");
  const Status imports = m.end_loop();
  TWINMAF_RETURN_IF_ERROR(m.loop_status);
  TWINMAF_RETURN_IF_ERROR(imports);
  if (m.done) return ok_status();
  return m.predict();
}

Status Scorer::use_feature(std::string_view name, const OptionList& options) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "feature {}: features are registered before open() or score()", name);
  return m.session->use_feature(name, option_dict(options));
}

Status Scorer::use_model(const ModelHandle& model) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *model.impl_;
  if (m.used)
    TWINMAF_FAIL(kInvalidArgument, "model {}: models are registered before open() or score()", h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  for (const FeatureUse& use : h.uses)
    TWINMAF_RETURN_IF_ERROR(m.session->use_feature_providing(use.provided_name, use.dict));
  return ok_status();
}

Status Scorer::import_score(std::string_view name, unsigned frame, double value, unsigned lane) {
  Impl& m = *impl_;
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (name.empty()) TWINMAF_FAIL(kInvalidArgument, "an imported score needs a name");
  if (m.streaming()) {
    m.pending_imports.push_back({std::string(name), frame, value, lane});
    return ok_status();
  }
  if (m.session->collector(lane).get(name, frame))
    TWINMAF_FAIL(kInvalidArgument, "'{}' already has a value at frame {}", name, frame);
  return m.session->collector(lane).append(name, frame, value);
}

std::optional<double> Scorer::stored_score(std::string_view name, unsigned frame, unsigned lane) const {
  const Impl& m = *impl_;
  if (m.streaming() || lane >= m.session->lanes()) return std::nullopt;
  return m.session->collector(lane).get(name, frame);
}

Result<double> Scorer::stored_pooled(std::string_view name, Pooling method, unsigned first, unsigned last,
                                     unsigned lane) const {
  const Impl& m = *impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (first > last) TWINMAF_FAIL(kInvalidArgument, "pooling frames {}..{}: the first is after the last", first, last);
  const Collector& c = m.session->collector(lane);
  const auto col = std::find_if(c.columns().begin(), c.columns().end(),
                                [&](const Collector::Column& k) { return k.name == name; });
  if (col == c.columns().end()) TWINMAF_FAIL(kInvalidArgument, "no metric '{}' is stored", name);
  constexpr PoolMethod kMethods[] = {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean,
                                     PoolMethod::kHarmonicMean};
  const std::optional<double> v =
      pool(*col, kMethods[static_cast<int>(method)], first, last, m.session->config().subsample);
  if (!v) TWINMAF_FAIL(kInvalidArgument, "'{}' has no value at some frame in {}..{}", name, first, last);
  return *v;
}

Result<double> Scorer::predict(const ModelHandle& model, unsigned frame, unsigned lane) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *model.impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (h.part == ModelHandle::Impl::Part::kMembers)
    TWINMAF_FAIL(kInvalidArgument, "model {}: a collection's members are scored with predict_collection()",
                 h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  return h.model.main().predict(m.session->collector(lane), frame);
}

Result<CollectionScore> Scorer::predict_collection(const ModelHandle& members, unsigned frame, unsigned lane) {
  Impl& m = *impl_;
  const ModelHandle::Impl& h = *members.impl_;
  TWINMAF_RETURN_IF_ERROR(m.check_readable());
  if (lane >= m.session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  if (h.part != ModelHandle::Impl::Part::kMembers)
    TWINMAF_FAIL(kInvalidArgument, "model {}: not a collection's members", h.model.label());
  TWINMAF_RETURN_IF_ERROR(h.bound);
  Collector& c = m.session->collector(lane);
  const std::string& n = h.name();
  const auto bagging = c.get(n + "_bagging", frame), stddev = c.get(n + "_stddev", frame),
             lo = c.get(n + "_ci_p95_lo", frame), hi = c.get(n + "_ci_p95_hi", frame);
  if (bagging && stddev && lo && hi) return CollectionScore{*bagging, *stddev, *lo, *hi};
  TWINMAF_ASSIGN_OR_RETURN(const BootstrapScore s, h.model.predict_collection(c, frame));
  return CollectionScore{s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi};
}

unsigned Scorer::frames() const { return impl_->info.frames; }

std::vector<std::string> Scorer::metrics(unsigned lane) const {
  std::vector<std::string> names;
  if (!impl_->done || lane >= impl_->session->lanes()) return names;
  for (const Collector::Column& c : impl_->session->collector(lane).columns())
    names.emplace_back(feature_name_alias(c.name));
  return names;
}

std::optional<double> Scorer::score(std::string_view metric, unsigned frame, unsigned lane) const {
  if (!impl_->done || lane >= impl_->session->lanes()) return std::nullopt;
  const Collector::Column* c = impl_->column(metric, lane);
  if (!c || frame >= c->values.size() || !c->written[frame]) return std::nullopt;
  return c->values[frame];
}

Result<Pooled> Scorer::pooled(std::string_view metric, unsigned lane) const {
  TWINMAF_RETURN_IF_ERROR(impl_->check_done());
  if (lane >= impl_->session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  const Collector::Column* c = impl_->column(metric, lane);
  if (!c) TWINMAF_FAIL(kInvalidArgument, "no metric '{}' was computed", metric);
  const unsigned n = impl_->info.frames, sub = impl_->session->config().subsample;
  return Pooled{pool_metric(*c, PoolMethod::kMin, n, sub), pool_metric(*c, PoolMethod::kMax, n, sub),
                pool_metric(*c, PoolMethod::kMean, n, sub), pool_metric(*c, PoolMethod::kHarmonicMean, n, sub)};
}

std::vector<std::pair<std::string, double>> Scorer::aggregates(unsigned lane) const {
  if (!impl_->done || lane >= impl_->session->lanes()) return {};
  return impl_->session->collector(lane).aggregates();
}

std::vector<ModelSummary> Scorer::summary(unsigned lane) const {
  std::vector<ModelSummary> out;
  const Impl& m = *impl_;
  if (!m.done || lane >= m.session->lanes()) return out;
  const Collector& c = m.session->collector(lane);
  const unsigned n = m.info.frames, sub = m.session->config().subsample;
  const auto mean_of = [&](const std::string& name) -> double {
    for (const Collector::Column& col : c.columns())
      if (col.name == name) return pool_metric(col, PoolMethod::kMean, n, sub);
    return NAN;
  };
  for (size_t k = 0; k < m.models.size(); ++k)
    out.push_back({m.labels[k], fmt::format("{}: {:f}", m.labels[k], mean_of(m.models[k].main().name()))});
  for (size_t k = 0; k < m.models.size(); ++k) {
    if (!m.models[k].is_collection()) continue;
    const std::string& name = m.models[k].collection_name();
    out.push_back({m.labels[k], fmt::format("{}: {:f}, ci.p95: [{:f}, {:f}], stddev: {:f}", m.labels[k],
                                            mean_of(name + "_bagging"), mean_of(name + "_ci_p95_lo"),
                                            mean_of(name + "_ci_p95_hi"), mean_of(name + "_stddev"))});
  }
  if (m.models.empty())
    for (const Collector::Column& col : c.columns())
      out.push_back({col.name, fmt::format("{}: {:f}", feature_name_alias(col.name), mean_of(col.name))});
  return out;
}

OutputInfo Scorer::Impl::output_info(Precision precision) const {
  const Impl& m = *this;
  OutputInfo info;
  info.version = "twinmaf-" TWINMAF_VERSION;
  info.fps = m.info.seconds > 0 ? m.info.frames / m.info.seconds : 0.0;
  info.width = m.fmt.w;
  info.height = m.fmt.h;
  info.frames = m.info.frames;
  info.subsample = m.session->config().subsample;
  // Recorded only when a GPU computed something, so CPU files stay
  // byte-identical to libvmaf's.
  if (std::any_of(m.info.backends.begin(), m.info.backends.end(), [](const auto& b) { return b.second != "cpu"; }))
    info.backends = m.info.backends;
  info.precision = precision;
  return info;
}

std::string Scorer::format(OutputFormat format, unsigned lane, Precision precision) const {
  if (impl_->streaming() || lane >= impl_->session->lanes()) return {};
  return format_output(format, impl_->session->collector(lane), impl_->output_info(precision));
}

Status Scorer::write(const std::string& path, OutputFormat format, unsigned lane, Precision precision) const {
  TWINMAF_RETURN_IF_ERROR(impl_->check_readable());
  if (lane >= impl_->session->lanes()) TWINMAF_FAIL(kInvalidArgument, "no distorted input {}", lane);
  return write_output(path, format, impl_->session->collector(lane), impl_->output_info(precision));
}

const RunInfo& Scorer::info() const { return impl_->info; }

}  // namespace twinmaf
