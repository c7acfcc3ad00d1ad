"""twinmaf.dask on a LocalCluster of two worker processes: a clip split into
segments of 5, 7 and 10 frames gives twinmaf.score's result bit for bit;
a killed worker changes nothing; score_many scores pairs."""
import os
import threading
import time

import pytest

import twinmaf
import twinmaf.dask
from distributed import Client, LocalCluster

MOTION = "motion=motion_five_frame_window=true:motion_moving_average=true"


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


def json_lines(r):
    return [l for l in r.to_json(precision="max").splitlines() if '"fps"' not in l]


def assert_same(split, single):
    assert len(split.frames) == len(single.frames) > 0
    assert split.frames == single.frames
    assert split.pooled == single.pooled
    assert split.aggregates == single.aggregates
    assert json_lines(split) == json_lines(single)
    assert split.info["warnings"] == single.info["warnings"]


@pytest.mark.parametrize("segment", [5, 7, 10])
def test_vmaf_and_motion_window(client, clips, segment):
    kw = dict(models=("vmaf_v0.6.1",), features=(MOTION, "psnr=enable_apsnr=true"), frame_count=23)
    single = twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], **kw)
    split = twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=segment, **kw)
    assert_same(split, single)
    # Non-trivial: the window's flush moves motion3 away from motion2.
    assert any(f["integer_motion3"] != f["integer_motion2"] for f in single.frames)


def test_v1_model_with_five_frame_window(client, clips):
    kw = dict(models=("vmaf_v1.0.16_hfr_3d0h",), frame_count=12)
    single = twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], **kw)
    split = twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=5, **kw)
    assert_same(split, single)


def test_float_model_subsample_and_input_end(client, clips):
    # float_motion keeps state across frames; subsample skips frames; the
    # inputs end (30 frames) inside a segment, with a warning.
    kw = dict(models=("vmaf_float_v0.6.1",), subsample=3)
    single = twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], **kw)
    split = twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=7, **kw)
    assert_same(split, single)
    assert len(single.frames) == 30


def test_killed_worker(client, clips):
    kw = dict(models=("vmaf_v0.6.1",), features=(MOTION,))
    single = twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], **kw)
    before = set(client.scheduler_info()["workers"])
    victim = sorted(before)[0]
    def kill():
        try:
            client.run(os._exit, 1, workers=[victim])
        except OSError:  # the worker's connection closes as it dies
            pass

    killer = threading.Timer(0.5, kill)
    killer.start()
    split = twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=2, **kw)
    killer.join()
    assert_same(split, single)
    deadline = time.monotonic() + 30
    while len(client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert victim not in client.scheduler_info()["workers"]


def test_score_many(client, clips):
    pairs = [(clips["ref.y4m"], clips["dis.y4m"]), (clips["ref.y4m"], clips["dis2.y4m"])] * 2
    kw = dict(features=("psnr",), frame_count=6)
    got = dict(twinmaf.dask.score_many(client, pairs, **kw))
    assert sorted(got) == [0, 1, 2, 3]
    for i, (ref, dis) in enumerate(pairs):
        single = twinmaf.score(ref, dis, **kw)
        assert got[i].frames == single.frames and got[i].pooled == single.pooled
        assert json_lines(got[i]) == json_lines(single)
    assert got[0].frames != got[1].frames


def test_bad_arguments(client, clips):
    import numpy as np

    with pytest.raises(ValueError, match="takes paths"):
        twinmaf.dask.score(client, np.zeros((2, 64, 64), np.uint8), np.zeros((2, 64, 64), np.uint8), segment_frames=5)
    with pytest.raises(ValueError, match="segment_frames"):
        twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=0)
    with pytest.raises(ValueError, match="unknown feature"):
        twinmaf.dask.score(client, clips["ref.y4m"], clips["dis.y4m"], segment_frames=5, features=("nosuch",))
    with pytest.raises(OSError, match="nonexistent"):
        twinmaf.dask.score(client, "/nonexistent.y4m", clips["dis.y4m"], segment_frames=5)
    with pytest.raises(ValueError, match="pairs"):
        list(twinmaf.dask.score_many(client, ["a.y4m"]))
    pair = [(clips["ref.y4m"], clips["dis.y4m"])]
    with pytest.raises(ValueError, match="unknown feature"):
        list(twinmaf.dask.score_many(client, pair, features=("nosuch",)))
    with pytest.raises(ValueError, match="nosuch_keyword"):
        list(twinmaf.dask.score_many(client, pair, nosuch_keyword=1))
    with pytest.raises(ValueError, match="threads"):
        list(twinmaf.dask.score_many(client, pair, threads=-1))


def test_a_missing_client_is_named():
    with pytest.raises(ValueError, match="client: expected a distributed.Client, got NoneType"):
        twinmaf.dask.score(None, "ref.y4m", "dis.y4m", segment_frames=8)
    with pytest.raises(ValueError, match="client: expected"):
        list(twinmaf.dask.score_many(None, [("ref.y4m", "dis.y4m")]))
