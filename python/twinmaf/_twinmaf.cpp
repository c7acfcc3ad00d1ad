// twinmaf._twinmaf: the public C++ API (twinmaf/twinmaf.h) for Python, one
// Scorer per job. The Python package (twinmaf/__init__.py) builds on it; this
// file only converts: texts and numbers in, Status out as exceptions
// (ValueError for what the caller can fix, OSError for files, RuntimeError
// for internal errors), pictures in from buffers, results out as Python
// objects. Long calls release the GIL and run on a thread of their own while
// the caller's thread waits for them and for signals: Ctrl-C cancels the run
// (Scorer::cancel) and raises KeyboardInterrupt once it has stopped. A Scorer
// is used by one Python thread at a time: a call while another thread's
// long call runs raises RuntimeError instead of reading half-written results.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <tuple>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "twinmaf/twinmaf.h"

namespace py = pybind11;

namespace {

[[noreturn]] void raise(const twinmaf::Status& st) {
  switch (st.code()) {
    case twinmaf::Code::kIo:
      PyErr_SetString(PyExc_OSError, st.message().c_str());
      throw py::error_already_set();
    case twinmaf::Code::kInternal: throw std::runtime_error(st.message());
    default: throw py::value_error(st.message());
  }
}

void check(const twinmaf::Status& st) {
  if (!st.ok()) raise(st);
}

twinmaf::OutputFormat output_format(const std::string& name) {
  if (name == "xml") return twinmaf::OutputFormat::kXml;
  if (name == "json") return twinmaf::OutputFormat::kJson;
  if (name == "csv") return twinmaf::OutputFormat::kCsv;
  if (name == "sub") return twinmaf::OutputFormat::kSub;
  throw py::value_error("unknown output format '" + name + "' (xml, json, csv, sub)");
}

twinmaf::Precision precision(const std::string& text) {
  if (text.empty()) return {};
  auto p = twinmaf::parse_precision(text);
  check(p.status());
  return *p;
}

std::optional<twinmaf::RawParams> raw_params(const py::object& raw) {
  if (raw.is_none()) return std::nullopt;
  auto t = raw.cast<std::tuple<int, int, std::string, int>>();
  twinmaf::RawParams p;
  p.w = std::get<0>(t);
  p.h = std::get<1>(t);
  const auto fmt = twinmaf::parse_pix_fmt(std::get<2>(t));
  if (!fmt) throw py::value_error("pixel_format '" + std::get<2>(t) + "': should be 420, 422, 444 or 400");
  p.fmt = *fmt;
  p.bpc = std::get<3>(t);
  return p;
}

// Runs body (a long call, GIL released) on a thread of its own; this
// thread waits, checking for signals every 50 ms: one calls cancel(),
// waits for body to end and raises the signal's exception.
template <typename F, typename C>
twinmaf::Status run_interruptibly(F&& body, C&& cancel) {
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  twinmaf::Status st;
  std::thread run([&] {
    twinmaf::Status s;
    try {
      s = body();
    } catch (const std::bad_alloc&) {
      s = twinmaf::Status(twinmaf::Code::kInternal, "out of memory");
    } catch (const std::exception& e) {
      s = twinmaf::Status(twinmaf::Code::kInternal, std::string("internal error: ") + e.what());
    }
    std::lock_guard lock(mutex);
    st = std::move(s);
    done = true;
    ended.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release nogil;
      std::unique_lock lock(mutex);
      if (ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
    }
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;
      cancel();
    }
  }
  {
    py::gil_scoped_release nogil;
    run.join();
  }
  if (interrupted) throw py::error_already_set();
  return st;
}

twinmaf::ScorerConfig scorer_config(std::vector<std::string> models, std::vector<std::string> features,
                                    unsigned threads, unsigned subsample, const std::string& backend,
                                    const std::string& decode, unsigned decoders, unsigned distorted) {
  twinmaf::ScorerConfig cfg;
  cfg.models = std::move(models);
  cfg.features = std::move(features);
  cfg.threads = threads;
  cfg.subsample = subsample;
  cfg.distorted = distorted;
  auto choice = twinmaf::parse_backend_choice(backend);
  check(choice.status());
  cfg.backend = choice->backend;
  cfg.feature_backends = choice->per_feature;
  auto dec = twinmaf::parse_decode(decode);
  check(dec.status());
  cfg.decode = std::move(*dec);
  cfg.decoders = decoders;
  return cfg;
}

// A Scorer and what Python needs around it: the progress callback's error,
// held until the call that ran the frames returns.
class PyScorer {
 public:
  PyScorer(std::vector<std::string> models, std::vector<std::string> features, unsigned threads, unsigned subsample,
           const std::string& backend, const std::string& decode, unsigned decoders, unsigned distorted,
           py::object progress) {
    twinmaf::ScorerConfig cfg =
        scorer_config(std::move(models), std::move(features), threads, subsample, backend, decode, decoders, distorted);
    if (!progress.is_none()) {
      progress_ = std::make_shared<py::object>(std::move(progress));
      // Called on the thread that finishes frames: takes the GIL; an
      // exception is kept and raised when the running call returns.
      cfg.progress = [cb = progress_, this](const twinmaf::Progress& p) {
        py::gil_scoped_acquire gil;
        if (progress_error_) return;
        try {
          (*cb)(p.frames, p.seconds);
        } catch (py::error_already_set& e) {
          progress_error_ = std::make_unique<py::error_already_set>(std::move(e));
          scorer_->cancel();  // the callback's exception ends the run
        }
      };
    }
    auto s = twinmaf::Scorer::create(std::move(cfg));
    check(s.status());
    scorer_ = std::move(*s);
  }

  // A Scorer score_many() ran.
  explicit PyScorer(std::unique_ptr<twinmaf::Scorer> scorer) : scorer_(std::move(scorer)) {}

  ~PyScorer() {
    // The frame loop may still call into Python: let it finish unlocked.
    py::gil_scoped_release nogil;
    scorer_.reset();
  }

  void score(const std::string& ref, const py::object& ref_raw, const std::vector<std::string>& dis,
             const py::object& dis_raw, unsigned frame_cnt, unsigned skip_ref, unsigned skip_dis) {
    const twinmaf::InputFile r{ref, raw_params(ref_raw)};
    std::vector<twinmaf::InputFile> d;
    for (const std::string& p : dis) d.push_back({p, raw_params(dis_raw)});
    const twinmaf::RunLimits limits{frame_cnt, skip_ref, skip_dis};
    const Busy busy(*this, "score()");
    after_frames(interruptible([&] { return scorer_->score(r, d, limits); }));
  }

  // Distributed runs: the terms of frames [first, first + count) of files.
  py::bytes compute_segment(const std::string& ref, const py::object& ref_raw, const std::vector<std::string>& dis,
                            const py::object& dis_raw, unsigned first, unsigned count, unsigned frame_cnt,
                            unsigned skip_ref, unsigned skip_dis) {
    const twinmaf::InputFile r{ref, raw_params(ref_raw)};
    std::vector<twinmaf::InputFile> d;
    for (const std::string& p : dis) d.push_back({p, raw_params(dis_raw)});
    const twinmaf::RunLimits limits{frame_cnt, skip_ref, skip_dis};
    const Busy busy(*this, "compute_segment()");
    std::optional<twinmaf::Result<std::string>> out;
    after_frames(interruptible([&] {
      out.emplace(scorer_->compute_segment(r, d, first, count, limits));
      return out->status();
    }));
    return py::bytes(**out);
  }

  void finish_segments(const std::vector<py::bytes>& segments) {
    std::vector<std::string_view> views;
    for (const py::bytes& b : segments) {
      char* data = nullptr;
      py::ssize_t n = 0;
      if (PyBytes_AsStringAndSize(b.ptr(), &data, &n) != 0) throw py::error_already_set();
      views.emplace_back(data, static_cast<size_t>(n));
    }
    const Busy busy(*this, "finish_segments()");
    after_frames(interruptible([&] { return scorer_->finish_segments(views); }));
  }

  void open(int w, int h, const std::string& pix_fmt, int bpc) {
    const auto fmt = twinmaf::parse_pix_fmt(pix_fmt);
    if (!fmt) throw py::value_error("pixel_format '" + pix_fmt + "': should be 420, 422, 444 or 400");
    const Busy busy(*this, "open()");
    fmt_ = twinmaf::VideoFormat{w, h, *fmt, bpc};
    check(scorer_->open(fmt_));
  }

  // One frame: per picture (reference first, then each distorted input), its
  // planes as C-contiguous 2-D buffers of the stored plane size, uint8 at bit
  // depth 8, uint16 above.
  void push(const std::vector<std::vector<py::buffer>>& pictures) {
    if (pictures.empty()) throw py::value_error("push(): no pictures");
    const Busy busy(*this, "push()");
    std::vector<twinmaf::PicturePtr> pics;
    for (size_t k = 0; k < pictures.size(); ++k) {
      auto pic = scorer_->new_picture();
      check(pic.status());
      const auto& planes = pictures[k];
      if (static_cast<int>(planes.size()) != fmt_.planes())
        throw py::value_error("push(): picture " + std::to_string(k) + " has " + std::to_string(planes.size()) +
                              " planes, the format has " + std::to_string(fmt_.planes()));
      for (int p = 0; p < fmt_.planes(); ++p) copy_plane(planes[static_cast<size_t>(p)], **pic, p);
      pics.push_back(std::move(*pic));
    }
    twinmaf::PicturePtr ref = std::move(pics.front());
    pics.erase(pics.begin());
    twinmaf::Status st;
    {
      py::gil_scoped_release nogil;
      st = scorer_->push(std::move(ref), std::move(pics));
    }
    after_frames(st);
  }

  void flush() {
    const Busy busy(*this, "flush()");
    after_frames(interruptible([&] { return scorer_->flush(); }));
  }

  unsigned frames() const {
    check_idle();
    return scorer_->frames();
  }
  std::vector<std::string> metrics(unsigned lane) const {
    check_idle();
    return scorer_->metrics(lane);
  }

  // One dict per frame: metric -> value, for the metrics computed there.
  py::list frame_values(unsigned lane) const {
    check_idle();
    const std::vector<std::string> names = scorer_->metrics(lane);
    py::list out;
    for (unsigned i = 0; i < scorer_->frames(lane); ++i) {
      py::dict d;
      for (const std::string& m : names)
        if (auto v = scorer_->score(m, i, lane)) d[py::str(m)] = *v;
      out.append(std::move(d));
    }
    return out;
  }

  // metric -> {'min', 'max', 'mean', 'harmonic_mean'} (libvmaf's
  // pooled_metrics).
  py::dict pooled(unsigned lane) const {
    check_idle();
    py::dict out;
    for (const std::string& m : scorer_->metrics(lane)) {
      auto p = scorer_->pooled(m, lane);
      check(p.status());
      py::dict d;
      d["min"] = p->min;
      d["max"] = p->max;
      d["mean"] = p->mean;
      d["harmonic_mean"] = p->harmonic_mean;
      out[py::str(m)] = std::move(d);
    }
    return out;
  }

  std::vector<std::pair<std::string, double>> aggregates(unsigned lane) const {
    check_idle();
    return scorer_->aggregates(lane);
  }

  std::vector<std::pair<std::string, std::string>> summary(unsigned lane) const {
    check_idle();
    std::vector<std::pair<std::string, std::string>> out;
    for (const twinmaf::ModelSummary& s : scorer_->summary(lane)) out.emplace_back(s.label, s.text);
    return out;
  }

  std::string format(const std::string& fmt, unsigned lane, const std::string& prec) const {
    check_idle();
    return scorer_->format(output_format(fmt), lane, precision(prec));
  }

  void write(const std::string& path, const std::string& fmt, unsigned lane, const std::string& prec) const {
    check_idle();
    check(scorer_->write(path, output_format(fmt), lane, precision(prec)));
  }

  py::dict info() const {
    check_idle();
    const twinmaf::RunInfo& i = scorer_->info();
    py::dict d;
    d["frames"] = i.frames;
    d["seconds"] = i.seconds;
    d["warnings"] = i.warnings;
    d["device"] = i.device;
    d["backends"] = i.backends;
    py::list decoding;
    for (const twinmaf::InputDecoding& x : i.decoding) {
      py::dict e;
      e["input"] = x.input;
      e["decoder"] = x.decoder;
      e["why"] = x.why;
      e["seconds"] = x.seconds;
      e["frames"] = x.frames;
      decoding.append(e);
    }
    d["decoding"] = decoding;
    return d;
  }

 private:
  // A long call in progress (flag read and written under the GIL).
  class Busy {
   public:
    Busy(PyScorer& s, const char* call) : s_(s) {
      s.check_idle();
      s.busy_ = call;
    }
    ~Busy() { s_.busy_ = nullptr; }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    PyScorer& s_;
  };
  void check_idle() const {
    if (busy_)
      throw std::runtime_error(std::string("twinmaf.Scorer: ") + busy_ +
                               " is running on another thread; a Scorer is used by one thread at a time");
  }

  template <typename F>
  twinmaf::Status interruptible(F&& body) {
    return run_interruptibly(std::forward<F>(body), [this] { scorer_->cancel(); });
  }

  void copy_plane(const py::buffer& buf, twinmaf::Picture& pic, int p) const {
    const py::buffer_info b = buf.request();
    const int w = fmt_.stored_w(p), h = fmt_.stored_h(p);
    const py::ssize_t item = fmt_.bytes_per_sample();
    const char* plane = p == 0 ? "luma" : (p == 1 ? "U" : "V");
    if (b.ndim != 2 || b.shape[0] != h || b.shape[1] != w)
      throw py::value_error(std::string("the ") + plane + " plane should be " + std::to_string(h) + "x" +
                            std::to_string(w) + " (rows x columns)");
    if (b.itemsize != item)
      throw py::value_error(std::string("the ") + plane + " plane should hold " + (item == 1 ? "uint8" : "uint16") +
                            " samples at bit depth " + std::to_string(fmt_.bpc));
    if (b.strides[1] != item || b.strides[0] != w * item)
      throw py::value_error(std::string("the ") + plane + " plane is not C-contiguous");
    const auto* src = static_cast<const uint8_t*>(b.ptr);
    const size_t row = static_cast<size_t>(w) * static_cast<size_t>(item);
    for (int y = 0; y < h; ++y) std::memcpy(pic.mutable_data(p) + y * pic.stride(p), src + y * row, row);
  }

  void after_frames(const twinmaf::Status& st) {
    if (progress_error_) {
      std::unique_ptr<py::error_already_set> e = std::move(progress_error_);
      throw std::move(*e);
    }
    check(st);
  }

  std::unique_ptr<twinmaf::Scorer> scorer_;
  twinmaf::VideoFormat fmt_;
  std::shared_ptr<py::object> progress_;
  std::unique_ptr<py::error_already_set> progress_error_;
  const char* busy_ = nullptr;  // the long call running, if any
};

// score_many(): jobs as (models, features, threads, subsample, backend,
// decode, decoders, reference, reference_raw, [distorted], distorted_raw,
// frame_cnt, skip_ref, skip_dis); per job a Scorer, or (kind, message) where
// kind is the exception to raise ("ValueError", "OSError", "RuntimeError").
using PyJob = std::tuple<std::vector<std::string>, std::vector<std::string>, unsigned, unsigned, std::string,
                         std::string, unsigned, std::string, py::object, std::vector<std::string>, py::object,
                         unsigned, unsigned, unsigned>;

py::list score_many(const std::vector<PyJob>& py_jobs, unsigned in_flight, const std::vector<int>& gpus) {
  std::vector<twinmaf::Job> jobs;
  for (const PyJob& j : py_jobs) {
    const auto& [models, features, threads, subsample, backend, decode, decoders, ref, ref_raw, dis, dis_raw,
                 frame_cnt, skip_ref, skip_dis] = j;
    twinmaf::Job job;
    job.config = scorer_config(models, features, threads, subsample, backend, decode, decoders,
                               static_cast<unsigned>(dis.size()));
    job.reference = {ref, raw_params(ref_raw)};
    for (const std::string& d : dis) job.distorted.push_back({d, raw_params(dis_raw)});
    job.limits = {frame_cnt, skip_ref, skip_dis};
    jobs.push_back(std::move(job));
  }
  std::vector<std::unique_ptr<twinmaf::Scorer>> scorers(jobs.size());
  std::vector<twinmaf::Status> status(jobs.size());
  twinmaf::BatchOptions options;
  options.in_flight = in_flight;
  options.gpus = gpus;
  options.cancel = std::make_shared<std::atomic<bool>>(false);
  options.done = [&](size_t k, std::unique_ptr<twinmaf::Scorer> s, const twinmaf::Status& st) {
    scorers[k] = std::move(s);
    status[k] = st;
  };
  const auto cancel = options.cancel;
  (void)run_interruptibly(
      [&] {
        twinmaf::score_many(jobs, options);
        return twinmaf::ok_status();
      },
      [cancel] { cancel->store(true); });
  py::list out;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const twinmaf::Status& st = status[k];
    if (st.ok()) {
      out.append(py::cast(std::make_unique<PyScorer>(std::move(scorers[k]))));
      continue;
    }
    const char* kind = st.code() == twinmaf::Code::kIo         ? "OSError"
                       : st.code() == twinmaf::Code::kInternal ? "RuntimeError"
                                                               : "ValueError";
    out.append(py::make_tuple(kind, st.message()));
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_twinmaf, m) {
  m.doc() = "twinmaf's C++ API (twinmaf/twinmaf.h); use the twinmaf package";
  m.def("version", [] { return std::string(twinmaf::version()); });
  m.def("has_feature", [](const std::string& name) { return twinmaf::has_feature(name); });
  m.def("check_output_path", [](const std::string& path) { check(twinmaf::check_output_path(path)); });
  m.def("write_file",
        [](const std::string& path, const std::string& text) { check(twinmaf::write_files({{path, text}})); });
  m.def("score_many", &score_many, py::arg("jobs"), py::arg("in_flight"), py::arg("gpus"));
  m.def("gpu_count", &twinmaf::gpu_count);
  py::class_<PyScorer>(m, "Scorer")
      .def(py::init<std::vector<std::string>, std::vector<std::string>, unsigned, unsigned, const std::string&,
                    const std::string&, unsigned, unsigned, py::object>(),
           py::arg("models"), py::arg("features"), py::arg("threads"), py::arg("subsample"), py::arg("backend"),
           py::arg("decode"), py::arg("decoders"), py::arg("distorted"), py::arg("progress"))
      .def("score", &PyScorer::score, py::arg("reference"), py::arg("reference_raw"), py::arg("distorted"),
           py::arg("distorted_raw"), py::arg("frame_cnt"), py::arg("skip_ref"), py::arg("skip_dis"))
      .def("compute_segment", &PyScorer::compute_segment)
      .def("finish_segments", &PyScorer::finish_segments)
      .def("open", &PyScorer::open)
      .def("push", &PyScorer::push)
      .def("flush", &PyScorer::flush)
      .def("frames", &PyScorer::frames)
      .def("metrics", &PyScorer::metrics, py::arg("lane") = 0)
      .def("frame_values", &PyScorer::frame_values, py::arg("lane") = 0)
      .def("pooled", &PyScorer::pooled, py::arg("lane") = 0)
      .def("aggregates", &PyScorer::aggregates, py::arg("lane") = 0)
      .def("summary", &PyScorer::summary, py::arg("lane") = 0)
      .def("format", &PyScorer::format, py::arg("format"), py::arg("lane") = 0, py::arg("precision") = "")
      .def("write", &PyScorer::write, py::arg("path"), py::arg("format"), py::arg("lane") = 0,
           py::arg("precision") = "")
      .def("info", &PyScorer::info);
}
