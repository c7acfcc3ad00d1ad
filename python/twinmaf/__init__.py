"""twinmaf: VMAF and libvmaf's features, every value equal to Netflix libvmaf's.

    import twinmaf
    r = twinmaf.score("ref.y4m", "dis.mp4", models=("vmaf_v0.6.1",), features=("psnr",))
    r.pooled["vmaf"]["mean"], r.frames[0]["psnr_y"]
    r.to_json("out.json")

Inputs are paths (raw YUV with width/height/pixel_format/bitdepth, Y4M, any
container FFmpeg reads) or frames: numpy arrays (N, H, W) of luma, tuples
(Y, U, V) of such arrays, or iterators of frames (a 2-D array or a (Y, U, V)
tuple each), uint8 at bit depth 8 and uint16 above. twinmaf.dask runs on a
dask.distributed cluster with the same results (docs/python.md).
"""

import dataclasses
import inspect
import os
import warnings

from . import _twinmaf

__all__ = ["score", "score_many", "Result", "version", "has_feature"]

version = _twinmaf.version
has_feature = _twinmaf.has_feature

_FORMATS = ("xml", "json", "csv", "sub")


def __getattr__(name):
    # twinmaf.dask imports dask.distributed: only when asked for.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module 'twinmaf' has no attribute '{name}'")


class Result:
    """A finished run of one distorted input.

    frames: one dict per frame, metric name -> value (libvmaf's JSON "metrics"
    names, model scores included); a frame skipped by subsample holds only
    what was computed there.
    pooled: metric name -> {'min', 'max', 'mean', 'harmonic_mean'}.
    aggregates: whole-run values (apsnr_y, ...).
    info: frames, seconds, warnings, device, backends, decoding.
    """

    def __init__(self, scorer, lane=0):
        self._scorer = scorer
        self._lane = lane
        self._texts = None
        self.metrics = scorer.metrics(lane)
        self.frames = scorer.frame_values(lane)
        self.pooled = scorer.pooled(lane)
        self.aggregates = dict(scorer.aggregates(lane))
        self.summary = [text for _, text in scorer.summary(lane)]
        self.info = scorer.info()

    def __repr__(self):
        return f"<twinmaf.Result: {len(self.frames)} frames; {'; '.join(self.summary)}>"

    def __getstate__(self):
        # A result crossing processes (Dask) keeps its files as text, in the
        # default precision and in "max".
        state = {k: v for k, v in self.__dict__.items() if k != "_scorer"}
        if self._scorer is not None:
            state["_texts"] = {
                (f, p): self._scorer.format(f, self._lane, p) for f in _FORMATS for p in ("", "max")
            }
        state["_scorer"] = None
        return state

    def format(self, fmt, precision=None):
        """libvmaf's result file as text: fmt 'xml', 'json', 'csv' or 'sub';
        precision None (libvmaf's), 0..17 digits, or 'max' (%.17g)."""
        if fmt not in _FORMATS:
            raise ValueError(f"unknown output format '{fmt}' (xml, json, csv, sub)")
        prec = "" if precision is None else str(precision)
        if self._scorer is not None:
            return self._scorer.format(fmt, self._lane, prec)
        if (fmt, prec) not in self._texts:
            raise ValueError("a result sent between processes keeps precision None and 'max' only")
        return self._texts[(fmt, prec)]

    def _write(self, fmt, path, precision):
        if path is None:
            return self.format(fmt, precision)
        path = os.fspath(path)
        if self._scorer is not None:
            self._scorer.write(path, fmt, self._lane, "" if precision is None else str(precision))
            return None
        _twinmaf.check_output_path(path)
        _twinmaf.write_file(path, self.format(fmt, precision))
        return None

    def to_json(self, path=None, precision=None):
        """Writes libvmaf's JSON file to `path` (or returns its text)."""
        return self._write("json", path, precision)

    def to_xml(self, path=None, precision=None):
        return self._write("xml", path, precision)

    def to_csv(self, path=None, precision=None):
        return self._write("csv", path, precision)

    def to_sub(self, path=None, precision=None):
        return self._write("sub", path, precision)

    def to_pandas(self):
        """The frames as a pandas DataFrame, one row per frame (index: frame
        number), one column per metric."""
        import pandas

        df = pandas.DataFrame(self.frames, columns=self.metrics)
        df.index.name = "frame"
        return df


def _model_text(text):
    # The CLI's --model texts; a bare first item is a version.
    first = text.split(":", 1)[0]
    return text if "=" in first else "version=" + text


def _texts(name, value):
    if isinstance(value, str):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise ValueError(f"{name}: expected a string or a sequence of strings") from None
    for v in items:
        if not isinstance(v, str):
            raise ValueError(f"{name}: expected strings, got {type(v).__name__}")
    return items


def _unsigned(name, value, lo=0):
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or value > 0xFFFFFFFF:
        raise ValueError(f"{name}: expected an integer >= {lo}, got {value!r}")
    return value


def _config(models, features, backend, threads, subsample, decode, decoders):
    """score()'s scorer keywords, checked, in _twinmaf's order (models,
    features, threads, subsample, backend, decode, decoders)."""
    if not isinstance(backend, str):
        raise ValueError("backend: expected 'auto', 'cpu', 'cuda' or a list like 'auto,psnr_hvs=cpu'")
    if not isinstance(decode, str):
        raise ValueError("decode: expected 'auto', 'cpu', 'nvdec' or one per input, 'cpu,nvdec'")
    return (
        [_model_text(m) for m in _texts("models", models)],
        _texts("features", features),
        _unsigned("threads", threads),
        _unsigned("subsample", subsample),
        backend,
        decode,
        _unsigned("decoders", decoders),
    )


def _scorer(models, features, backend, threads, subsample, progress, decode="auto", decoders=0, distorted=1):
    """A configured _twinmaf.Scorer from score()'s keywords."""
    if progress is not None and not callable(progress):
        raise ValueError("progress: expected a callable progress(frames, seconds)")
    return _twinmaf.Scorer(*_config(models, features, backend, threads, subsample, decode, decoders), distorted, progress)


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


def _raw(path, width, height, pixel_format, bitdepth):
    """The raw layout of a path: given when any size argument is (then all
    are needed, as the CLI's -w -h -p -b), else None (Y4M or a container)."""
    given = [a is not None for a in (width, height, pixel_format, bitdepth)]
    if not any(given):
        if path.lower().endswith(".yuv"):
            raise ValueError(f"{path}: a raw .yuv input needs width, height, pixel_format and bitdepth")
        return None
    if not all(given):
        raise ValueError("raw input needs all of width, height, pixel_format, bitdepth")
    return (
        _unsigned("width", width, 1),
        _unsigned("height", height, 1),
        str(pixel_format),
        _unsigned("bitdepth", bitdepth, 8),
    )


class _Frames:
    """Frames from numpy arrays or an iterator: the format of the first frame,
    then each frame's planes as contiguous arrays."""

    def __init__(self, name, src, pixel_format, bitdepth):
        import numpy as np

        self._np = np
        self.name = name
        if isinstance(src, np.ndarray):
            if src.ndim != 3:
                raise ValueError(f"{name}: an array of frames is (N, H, W); got shape {src.shape}")
            it = iter(src)
        elif isinstance(src, tuple) and len(src) == 3 and all(isinstance(p, np.ndarray) for p in src):
            if any(p.ndim != 3 for p in src) or len({len(p) for p in src}) != 1:
                raise ValueError(f"{name}: (Y, U, V) are three arrays (N, H, W) of the same N")
            it = zip(*src)
        else:
            try:
                it = iter(src)
            except TypeError:
                raise ValueError(
                    f"{name}: expected a path, a numpy array (N, H, W), a tuple (Y, U, V) of arrays, "
                    f"or an iterator of frames; got {type(src).__name__}"
                ) from None
        self._it = it
        self._first = self._next_planes()
        if self._first is None:
            raise ValueError(f"{name}: no frames")
        y = self._first[0]
        self.h, self.w = y.shape
        if y.dtype == np.uint8:
            self.bpc = 8
            if bitdepth not in (None, 8):
                raise ValueError(f"{name}: uint8 samples are bit depth 8, not {bitdepth}")
        elif y.dtype == np.uint16:
            if bitdepth is None or isinstance(bitdepth, bool) or not 9 <= bitdepth <= 16:
                raise ValueError(f"{name}: uint16 samples need bitdepth= 9..16")
            self.bpc = bitdepth
        else:
            raise ValueError(f"{name}: samples must be uint8 or uint16, got {y.dtype}")
        if len(self._first) == 1:
            self.fmt = "400"
        else:
            cw, ch = self._first[1].shape[1], self._first[1].shape[0]
            hw, hh = (self.w + 1) // 2, (self.h + 1) // 2
            layouts = {(self.w, self.h): "444", (hw, self.h): "422", (hw, hh): "420"}
            if (cw, ch) not in layouts or self._first[2].shape != self._first[1].shape:
                raise ValueError(
                    f"{name}: chroma planes of {ch}x{cw} fit no layout of a {self.h}x{self.w} luma plane "
                    f"(4:4:4 {self.h}x{self.w}, 4:2:2 {self.h}x{hw}, 4:2:0 {hh}x{hw})"
                )
            self.fmt = layouts[(cw, ch)]
        if pixel_format is not None and str(pixel_format) != self.fmt:
            raise ValueError(f"{name}: pixel_format {pixel_format} given, the planes are {self.fmt}")

    def _next_planes(self):
        np = self._np
        try:
            frame = next(self._it)
        except StopIteration:
            return None
        planes = tuple(frame) if isinstance(frame, (tuple, list)) else (frame,)
        if len(planes) not in (1, 3):
            raise ValueError(f"{self.name}: a frame is a 2-D array or a tuple (Y, U, V)")
        out = []
        for p in planes:
            p = np.asarray(p)
            if p.ndim != 2:
                raise ValueError(f"{self.name}: a plane is a 2-D array; got shape {p.shape}")
            out.append(np.ascontiguousarray(p))
        return out

    def frames(self):
        first, self._first = self._first, None
        dtype = first[0].dtype
        yield first
        while True:
            planes = self._next_planes()
            if planes is None:
                return
            if any(p.dtype != dtype for p in planes):
                raise ValueError(f"{self.name}: frames of different sample types")
            yield planes


def _push_frames(scorer, ref, dis, frame_count, pixel_format, bitdepth):
    r = _Frames("reference", ref, pixel_format, bitdepth)
    d = _Frames("distorted", dis, pixel_format, bitdepth)
    for what in ("w", "h", "fmt", "bpc"):
        if getattr(r, what) != getattr(d, what):
            raise ValueError(
                f"the reference is {r.h}x{r.w} {r.fmt} {r.bpc}-bit, the distorted frames {d.h}x{d.w} {d.fmt} {d.bpc}-bit"
            )
    scorer.open(r.w, r.h, r.fmt, r.bpc)
    n = 0
    warning = None
    ref_frames, dis_frames = r.frames(), d.frames()
    while frame_count is None or n < frame_count:
        rp, dp = next(ref_frames, None), next(dis_frames, None)
        if rp is None or dp is None:
            if rp is not None or dp is not None:  # as the files' warning: scored up to the shorter one
                ended, other = ("reference", "distorted") if rp is None else ("distorted", "reference")
                warning = f"the {ended} frames ended before the {other} frames; scored the first {n} frames"
            break
        scorer.push([rp, dp])
        n += 1
    scorer.flush()
    return warning


def _limits(frame_count, frame_skip_ref, frame_skip_dist):
    return (
        0 if frame_count is None else _unsigned("frame_count", frame_count, 1),
        _unsigned("frame_skip_ref", frame_skip_ref),
        _unsigned("frame_skip_dist", frame_skip_dist),
    )


@dataclasses.dataclass(frozen=True)
class _Options:
    """score()'s keywords after (reference, distorted), with their defaults:
    declared here once for twinmaf.score and twinmaf.dask.score, whose
    signatures list them (_takes_options)."""

    width: object = None
    height: object = None
    pixel_format: object = None
    bitdepth: object = None
    models: object = ("vmaf_v0.6.1",)
    features: object = ()
    backend: object = "auto"
    decode: object = "auto"
    decoders: object = 0
    threads: object = 0
    frame_count: object = None
    subsample: object = 1
    progress: object = None
    frame_skip_ref: object = 0
    frame_skip_dist: object = 0

    @classmethod
    def of(cls, func_name, options):
        """The options passed to `func_name` as keywords; an unknown one
        raises TypeError as a call of a function without it would."""
        names = {f.name for f in dataclasses.fields(cls)}
        for k in options:
            if k not in names:
                raise TypeError(f"{func_name}() got an unexpected keyword argument '{k}'")
        return cls(**options)

    def scorer_config(self):
        """_scorer()'s keywords."""
        return dict(
            models=self.models,
            features=self.features,
            backend=self.backend,
            decode=self.decode,
            decoders=self.decoders,
            threads=self.threads,
            subsample=self.subsample,
            progress=self.progress,
        )

    def limits(self):
        return _limits(self.frame_count, self.frame_skip_ref, self.frame_skip_dist)

    def raw(self, path):
        return _raw(path, self.width, self.height, self.pixel_format, self.bitdepth)


def _takes_options(func):
    """For func(..., **options) taking _Options' fields: its signature (as
    help() and inspect show it) lists them as keyword-only parameters with
    their defaults, after func's own required keywords and before its other
    keywords."""
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    at = len(own)
    for i, p in enumerate(own):
        if p.kind == p.KEYWORD_ONLY and p.default is not p.empty:
            at = i
            break
    options = [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default)
        for f in dataclasses.fields(_Options)
    ]
    func.__signature__ = sig.replace(parameters=own[:at] + options + own[at:])
    return func


@_takes_options
def score(reference, distorted, **options):
    """Scores `distorted` against `reference`; returns a Result.

    reference, distorted: both paths (raw YUV needs width, height,
    pixel_format ('420', '422', '444', '400') and bitdepth; Y4M and containers
    carry their own), or both frames (numpy arrays or iterators; see the
    module's doc). models, features: the CLI's --model and --feature texts
    ('vmaf_v0.6.1', 'path=m.json:name=m', 'psnr=enable_chroma=false').
    backend: 'auto', 'cpu', 'cuda', or per feature 'auto,psnr_hvs=cpu'.
    decode: where compressed files decode, 'auto', 'cpu', 'nvdec' or one
    per input, 'cpu,nvdec' (the CLI's --decode; Result.info['decoding']
    says where each did). decoders: decoders per compressed file, each on
    its own stretches between random-access points (the CLI's --decoders;
    0: the plan's choice). threads: worker threads (0: the calling thread).
    frame_count: at most this many frames. subsample: every Nth frame. progress: called as
    progress(frames, seconds) after each frame, on the thread finishing frames.
    frame_skip_ref, frame_skip_dist: frames skipped at the start of each path.
    Inputs of different lengths are scored up to the shorter one, with a
    warning in Result.info['warnings'] and through Python's warnings module
    (as every warning of the run). Errors raise ValueError (arguments, inputs) or OSError (files) with the
    command line's message.
    """
    o = _Options.of("score", options)
    limits = o.limits()
    s = _scorer(**o.scorer_config())
    cut = None
    if _is_path(reference) and _is_path(distorted):
        rp, dp = os.fsdecode(reference), os.fsdecode(distorted)
        raw = o.raw(rp)
        if raw is None:
            o.raw(dp)
        s.score(rp, raw, [dp], raw, *limits)
    elif _is_path(reference) or _is_path(distorted):
        raise ValueError("reference and distorted: give two paths or two sets of frames")
    else:
        if o.width is not None or o.height is not None:
            raise ValueError("width and height are for raw files; frames carry their size")
        if o.frame_skip_ref or o.frame_skip_dist:
            raise ValueError("frame_skip_ref/frame_skip_dist are for files; slice the frames instead")
        cut = _push_frames(s, reference, distorted, o.frame_count, o.pixel_format, o.bitdepth)
    result = Result(s)
    if cut:
        result.info["warnings"].append(cut)
    for w in result.info["warnings"]:
        warnings.warn(w, stacklevel=2)
    return result


_ERRORS = {"ValueError": ValueError, "OSError": OSError, "RuntimeError": RuntimeError}


@_takes_options
def score_many(jobs, *, in_flight=0, gpus=None, errors="raise", **options):
    """Scores many jobs in one process; returns one entry per job, in order.

    jobs: (reference, distorted) pairs of paths, or dicts with 'reference',
    'distorted' and any of score()'s keywords for that job alone. A job whose
    distorted is a list of paths scores each against the reference (one
    reading of the reference); its entry is a list of Results, else a Result.
    The other keywords are every job's defaults (progress excepted).
    The GPU context and its kernels are set up once for all jobs, and
    in_flight jobs run at once (0: 2 on a GPU, else as many as the cores hold
    jobs of `threads` threads), so one job's reading and decoding overlap
    another's kernels. gpus: 'all' or a list of CUDA device indexes the
    jobs are spread over, in_flight on each (an index may repeat); None:
    each job's device 0. Each Result equals score()'s for its job.
    A failing job fails alone: errors='raise' raises the first failure (by
    job) once every job has run, with every job's entry in its `results`;
    errors='return' puts the exception in the job's entry instead.
    Ctrl-C cancels the running jobs and raises KeyboardInterrupt.
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors: expected 'raise' or 'return', got {errors!r}")
    base = _Options.of("score_many", options)
    if base.progress is not None:
        raise ValueError("progress: score_many() has no per-frame progress (jobs run at once)")
    specs, lanes = [], []
    for k, job in enumerate(jobs):
        try:
            if isinstance(job, dict):
                job = dict(job)
                if "reference" not in job or "distorted" not in job:
                    raise ValueError("a job dict needs 'reference' and 'distorted'")
                ref, dis = job.pop("reference"), job.pop("distorted")
                if "progress" in job:
                    raise ValueError("progress: score_many() has no per-frame progress")
                _Options.of("score_many", job)  # an unknown keyword: TypeError
                o = dataclasses.replace(base, **job)
            else:
                ref, dis = job
                o = base
            many = isinstance(dis, (list, tuple))
            dis = list(dis) if many else [dis]
            if not _is_path(ref) or not dis or not all(_is_path(d) for d in dis):
                raise ValueError("score_many() takes paths (score() takes frames)")
            rp, dps = os.fsdecode(ref), [os.fsdecode(d) for d in dis]
            raw = o.raw(rp)
            if raw is None:
                for d in dps:
                    o.raw(d)
            cfg = o.scorer_config()
            del cfg["progress"]
            specs.append((*_config(**cfg), rp, raw, dps, raw, *o.limits()))
            lanes.append(len(dps) if many else 0)
        except (ValueError, TypeError) as e:
            raise type(e)(f"job {k}: {e}") from None
    if gpus == "all":
        gpus = list(range(max(1, _twinmaf.gpu_count())))
    elif gpus is None:
        gpus = []
    elif isinstance(gpus, (str, bytes)) or not all(isinstance(g, int) and 0 <= g < 1024 for g in gpus):
        raise ValueError(f"gpus: expected 'all' or a list of device indexes, got {gpus!r}")
    done = _twinmaf.score_many(specs, _unsigned("in_flight", in_flight), list(gpus))
    results, first = [], None
    for k, (entry, n) in enumerate(zip(done, lanes)):
        if isinstance(entry, tuple):
            exc = _ERRORS[entry[0]](f"job {k}: {entry[1]}")
            first = first or exc
            results.append(exc)
            continue
        r = [Result(entry, lane) for lane in range(n)] if n else Result(entry)
        for w in entry.info()["warnings"]:
            warnings.warn(f"job {k}: {w}", stacklevel=2)
        results.append(r)
    if first is not None and errors == "raise":
        first.results = results
        raise first
    return results
