"""twinmaf on a dask.distributed cluster, with the results of a single run.

    from dask.distributed import Client
    import twinmaf.dask
    client = Client("tcp://scheduler:8786")
    r = twinmaf.dask.score(client, "ref.y4m", "dis.y4m", segment_frames=240)
    for i, r in twinmaf.dask.score_many(client, [("ref.y4m", "a.mp4"), ("ref.y4m", "b.mp4")]): ...

score() splits one clip into segments of frames, one task each: a worker
computes the features' per-frame terms of its segment (reading the frames
before it that history and temporal features need), and the client finishes
every frame in order, flushes the temporal features (motion2/motion3, the
five-frame window and moving average), predicts and pools: exactly what
twinmaf.score computes. Tasks are pure; a task lost with its worker is run
again by Dask with the same bytes as its result.

Inputs are paths every worker can read. Workers need twinmaf importable (the
same build as the client: segments carry its version and configuration).
"""

import inspect
import os
import time

import twinmaf
from distributed import as_completed

__all__ = ["score", "score_many"]


def _segment(ref, ref_raw, dis, dis_raw, config, first, count, limits):
    """A task: (frames, bytes) of frames [first, first + count)."""
    s = twinmaf._scorer(**config)
    data = s.compute_segment(ref, ref_raw, [dis], dis_raw, first, count, *limits)
    return s.frames(), data


def _pair(ref, dis, kwargs):
    """A task: one pair, a whole run."""
    return twinmaf.score(ref, dis, **kwargs)


def _paths(reference, distorted, options):
    if not (twinmaf._is_path(reference) and twinmaf._is_path(distorted)):
        raise ValueError("twinmaf.dask.score takes paths the workers can read; score frames with twinmaf.score")
    ref, dis = os.fsdecode(reference), os.fsdecode(distorted)
    return ref, options.raw(ref), dis, options.raw(dis)


def _check_client(client):
    if not (hasattr(client, "submit") and hasattr(client, "nthreads")):
        raise ValueError(f"client: expected a distributed.Client, got {type(client).__name__}")


@twinmaf._takes_options
def score(client, reference, distorted, *, segment_frames, resources=None, max_pending=None, **options):
    """twinmaf.score on `client`'s cluster, segments of `segment_frames` frames
    as tasks; returns the same Result, bit for bit.

    The keywords are twinmaf.score's (threads and backend apply on each
    worker; progress is called as the client finishes frames), plus
    resources: Dask resources each task needs (e.g. {'GPU': 1}), and
    max_pending: tasks in flight at once (default: twice the workers' threads,
    at least 2). The clip's length need not be known: segments are submitted
    until one comes back short.
    """
    _check_client(client)
    o = twinmaf._Options.of("score", options)
    segment_frames = twinmaf._unsigned("segment_frames", segment_frames, 1)
    limits = o.limits()
    config = dict(o.scorer_config(), progress=None)
    # Bad arguments fail here, before any task.
    client_scorer = twinmaf._scorer(**o.scorer_config())
    ref, ref_raw, dis, dis_raw = _paths(reference, distorted, o)
    if max_pending is None:
        max_pending = max(2, 2 * sum(client.nthreads().values()))
    t0 = time.monotonic()

    def submit(k):
        return client.submit(
            _segment, ref, ref_raw, dis, dis_raw, config, k * segment_frames, segment_frames, limits,
            resources=resources, pure=True,
        )

    futures = {}  # segment -> its future, while pending
    results = {}  # segment -> its bytes
    next_k = 0
    end = None  # the first segment that came back short, once known
    pending = as_completed()

    def add(k):
        futures[k] = submit(k)
        pending.add(futures[k])

    try:
        for next_k in range(max_pending):
            add(next_k)
        next_k = max_pending
        for fut in pending:
            k = next((i for i, f in futures.items() if f is fut), None)
            if k is None:  # cancelled: past the end
                continue
            del futures[k]
            frames, results[k] = fut.result()
            if frames < segment_frames and (end is None or k < end):
                end = k
                for i in [i for i in futures if i > end]:
                    futures.pop(i).cancel()
            if end is None:
                add(next_k)
                next_k += 1
    finally:
        for f in futures.values():
            f.cancel()
    client_scorer.finish_segments([results[k] for k in range(end + 1)])
    result = twinmaf.Result(client_scorer)
    result.info["seconds"] = time.monotonic() - t0
    return result


def score_many(client, pairs, *, resources=None, **kwargs):
    """Scores many (reference, distorted) pairs, one task each, with
    twinmaf.score's keywords; yields (index, Result) as each finishes (the
    index into `pairs`). A pair's error is raised when its turn comes."""
    _check_client(client)
    pairs = list(pairs)
    for p in pairs:
        if not (isinstance(p, (tuple, list)) and len(p) == 2):
            raise ValueError("pairs: expected (reference, distorted) pairs")
    if "client" in kwargs or "segment_frames" in kwargs:
        raise ValueError("score_many scores each pair in one task; use twinmaf.dask.score to split a clip")
    # Bad keywords fail here, before any task, with twinmaf.score's defaults.
    try:
        inspect.signature(twinmaf.score).bind(None, None, **kwargs)
    except TypeError as e:
        raise ValueError(f"score_many: {e}") from None
    twinmaf._scorer(**twinmaf._Options.of("score", kwargs).scorer_config())
    futures = {}
    for i, (ref, dis) in enumerate(pairs):
        futures[client.submit(_pair, ref, dis, kwargs, resources=resources, pure=False)] = i
    for fut in as_completed(list(futures)):
        yield futures[fut], fut.result()
