"""twinmaf.score: files and numpy frames give the CLI's values (==); the
result's files are the CLI's; bad arguments raise one clear error."""
import json
import os

import numpy as np
import pytest

import twinmaf
from conftest import SYNTH, assert_equals_cli, cli_json

W, H = 576, 324
FEATURES = ("psnr=enable_apsnr=true", "motion=motion_five_frame_window=true:motion_moving_average=true")


def read_yuv(path, w, h, bpc, chroma=True):
    dtype = np.uint8 if bpc == 8 else np.uint16
    cw, ch = (w + 1) // 2, (h + 1) // 2
    frame = w * h + (2 * cw * ch if chroma else 0)
    data = np.fromfile(path, dtype=dtype)
    n = data.size // frame
    data = data[: n * frame].reshape(n, frame)
    y = data[:, : w * h].reshape(n, h, w)
    if not chroma:
        return y
    u = data[:, w * h : w * h + cw * ch].reshape(n, ch, cw)
    v = data[:, w * h + cw * ch :].reshape(n, ch, cw)
    return y, u, v


def test_container_equals_cli(tmp_path):
    ref, dis = SYNTH + ".mkv", SYNTH + "__x264crf28.mkv"
    r = twinmaf.score(ref, dis, features=FEATURES, frame_count=10)
    assert_equals_cli(r, cli_json(ref, dis, "--feature", FEATURES[0], "--feature", FEATURES[1], "--frame_cnt", "10", tmp=tmp_path))
    assert r.pooled["vmaf"]["mean"] > 50 and "apsnr_y" in r.aggregates


def test_decode_choices_give_the_same_values(tmp_path):
    ref, dis = SYNTH + ".mkv", SYNTH + "__x264crf28.mkv"
    a = twinmaf.score(ref, dis, features=FEATURES, frame_count=6, decode="cpu")
    b = twinmaf.score(ref, dis, features=FEATURES, frame_count=6, decode="auto,cpu")
    assert a.frames == b.frames and a.pooled == b.pooled
    decoding = a.info["decoding"]
    assert [d["input"] for d in decoding] == [ref, dis]
    assert all(d["decoder"].startswith("cpu") and d["why"] == "--decode cpu" and d["frames"] == 6 for d in decoding)
    # Several decoders: the same values; a 48-frame stream has no stretch to split at.
    c = twinmaf.score(ref, dis, features=FEATURES, frame_count=6, decode="cpu", decoders=3)
    assert c.frames == a.frames and c.pooled == a.pooled
    assert all("one decoder: it has no random-access point" in d["decoder"] for d in c.info["decoding"])


def test_y4m_equals_cli_and_files(clips, tmp_path):
    ref, dis = clips["ref.y4m"], clips["dis.y4m"]
    r = twinmaf.score(ref, dis, features=("psnr",), frame_count=6)
    assert_equals_cli(r, cli_json(ref, dis, "--feature", "psnr", "--frame_cnt", "6", tmp=tmp_path))
    # libvmaf's files, the CLI's bytes but for the timing line.
    for fmt in ("json", "xml", "csv"):
        cli_out = tmp_path / f"cli.{fmt}"
        os.system(f"{os.environ['TWINMAF_CLI']} -r {ref} -d {dis} --feature psnr --frame_cnt 6 --{fmt} -o {cli_out} -q")
        mine = tmp_path / f"mine.{fmt}"
        getattr(r, f"to_{fmt}")(mine)
        strip = lambda t: [l for l in t.splitlines() if "fps" not in l]
        assert strip(mine.read_text()) == strip(cli_out.read_text()), fmt
        assert getattr(r, f"to_{fmt}")() == mine.read_text()
    df = r.to_pandas()
    assert df.shape == (6, len(r.metrics)) and df["vmaf"].tolist() == [f["vmaf"] for f in r.frames]


def test_raw_and_numpy_equal_cli(clips, tmp_path):
    ref, dis = clips["ref.yuv"], clips["dis.yuv"]
    raw = (W, H, "420", 8)
    cli = cli_json(ref, dis, "--feature", "psnr", raw=raw, tmp=tmp_path)
    r = twinmaf.score(ref, dis, width=W, height=H, pixel_format="420", bitdepth=8, features=("psnr",))
    assert_equals_cli(r, cli)
    arrays = twinmaf.score(read_yuv(ref, W, H, 8), read_yuv(dis, W, H, 8), features=("psnr",))
    assert_equals_cli(arrays, cli)
    # An iterator of (Y, U, V) frames, from a generator.
    frames = lambda p: (tuple(planes) for planes in zip(*read_yuv(p, W, H, 8)))
    it = twinmaf.score(frames(ref), frames(dis), features=("psnr",), frame_count=5)
    assert it.frames == twinmaf.score(ref, dis, width=W, height=H, pixel_format="420", bitdepth=8, features=("psnr",), frame_count=5).frames
    assert it.frames != arrays.frames[:5]  # frame 4 is the last: motion2 ends the series there


def test_arrays_of_different_lengths_warn(clips):
    ref, dis = (read_yuv(clips[k], W, H, 8) for k in ("ref.yuv", "dis.yuv"))
    whole = twinmaf.score(ref, dis, features=("psnr",))
    assert whole.info["warnings"] == []
    n = len(ref[0])
    for r, d, ended in (([p[: n - 2] for p in ref], dis, "reference"), (ref, [p[: n - 2] for p in dis], "distorted")):
        with pytest.warns(UserWarning, match=f"the {ended} frames ended before"):
            cut = twinmaf.score(tuple(r), tuple(d), features=("psnr",))
        assert len(cut.frames) == n - 2
        assert cut.info["warnings"] == [f"the {ended} frames ended before the "
                                        f"{'distorted' if ended == 'reference' else 'reference'} frames; "
                                        f"scored the first {n - 2} frames"]
    # frame_count shorter than both: no warning.
    assert twinmaf.score(ref, dis, features=("psnr",), frame_count=2).info["warnings"] == []


def test_luma_only_numpy_equals_cli_400(clips, tmp_path):
    ref, dis = clips["ref.gray"], clips["dis.gray"]
    cli = cli_json(ref, dis, "--feature", "psnr", raw=(W, H, "400", 8), tmp=tmp_path)
    r = twinmaf.score(read_yuv(ref, W, H, 8, chroma=False), read_yuv(dis, W, H, 8, chroma=False), features=("psnr",))
    assert_equals_cli(r, cli)
    assert "psnr_cb" not in r.frames[0]


def test_uint16_numpy_equals_cli(clips, tmp_path):
    ref, dis = clips["ref10.yuv"], clips["dis10.yuv"]
    raw = (1920, 1080, "420", 10)
    cli = cli_json(ref, dis, "--feature", "psnr", "--model", "version=vmaf_v0.6.1", raw=raw, tmp=tmp_path)
    r = twinmaf.score(read_yuv(ref, 1920, 1080, 10), read_yuv(dis, 1920, 1080, 10), bitdepth=10, features=("psnr",), threads=2)
    assert_equals_cli(r, cli)


def test_progress_and_subsample(clips):
    seen = []
    r = twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], frame_count=7, subsample=3, progress=lambda n, s: seen.append(n))
    assert seen == list(range(1, 8))
    assert "vmaf" in r.frames[3] and "vmaf" not in r.frames[1]

    def boom(n, s):
        raise KeyError("stop")

    with pytest.raises(KeyError):
        twinmaf.score(clips["ref.y4m"], clips["dis.y4m"], frame_count=3, progress=boom)


@pytest.mark.parametrize(
    "call, error, text",
    [
        (lambda c: twinmaf.score("/nonexistent.y4m", c["dis.y4m"]), OSError, "/nonexistent.y4m"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], features=("nosuch",)), ValueError, "unknown feature 'nosuch'"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], features=("psnr=enable_chroma=maybe",)), ValueError, "enable_chroma"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], models=("vmaf_nosuch",)), ValueError, "vmaf_nosuch"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], backend="gpu"), ValueError, "gpu"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], threads=-1), ValueError, "threads"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], decode="gpu"), ValueError, "'gpu' is not auto, cpu or nvdec"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], decoders=-1), ValueError, "decoders"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], decode="cpu,cpu,cpu"), ValueError, "3 choices for 2 inputs"),
        (lambda c: twinmaf.score(c["ref.yuv"], c["dis.yuv"]), ValueError, "needs width, height"),
        (lambda c: twinmaf.score(c["ref.yuv"], c["dis.yuv"], width=W), ValueError, "needs all of"),
        (lambda c: twinmaf.score(c["ref.y4m"], np.zeros((2, 64, 64), np.uint8)), ValueError, "two paths"),
        (lambda c: twinmaf.score(np.zeros((2, 64, 64), np.float32), np.zeros((2, 64, 64), np.float32)), ValueError, "uint8 or uint16"),
        (lambda c: twinmaf.score(np.zeros((2, 64, 64), np.uint16), np.zeros((2, 64, 64), np.uint16)), ValueError, "bitdepth"),
        (lambda c: twinmaf.score(np.zeros((2, 64, 64), np.uint8), np.zeros((2, 64, 48), np.uint8)), ValueError, "64x48"),
        (lambda c: twinmaf.score(np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.uint8)), ValueError, "(N, H, W)"),
        (lambda c: twinmaf.score((np.zeros((1, 64, 64), np.uint8),) * 3, (np.zeros((1, 64, 64), np.uint8),) * 3, pixel_format="420"), ValueError, "444"),
        (lambda c: twinmaf.score(np.full((1, 64, 64), 300, np.uint16), np.zeros((1, 64, 64), np.uint16), bitdepth=8), ValueError, "9..16"),
        (lambda c: twinmaf.score(np.full((1, 64, 64), 1100, np.uint16), np.zeros((1, 64, 64), np.uint16), bitdepth=10, models=(), features=("psnr",)), ValueError, "1100"),
        (lambda c: twinmaf.score(iter([]), iter([])), ValueError, "no frames"),
        (lambda c: twinmaf.score(c["ref.y4m"], c["dis.y4m"], frame_count=2).to_json("/nonexistent/dir/x.json"), OSError, "/nonexistent/dir"),
    ],
)
def test_bad_arguments(clips, call, error, text):
    with pytest.raises(error) as e:
        call(clips)
    assert text in str(e.value)
    assert "\n" not in str(e.value)


def test_segments_of_every_feature_equal_a_single_run(clips):
    # Scorer.compute_segment/finish_segments without a cluster, for the
    # features test_dask's models do not read: each one's terms cross as
    # bytes (FrameTerms::save/load) and must finish to the same values.
    feats = ("ciede", "float_ssim", "float_ms_ssim", "float_ansnr", "float_moment", "psnr_hvs", "float_psnr",
             "speed_temporal", "float_motion=motion_add_scale1=true")
    cfg = dict(models=(), features=feats, backend="auto", threads=0, subsample=1, progress=None)
    ref, dis = clips["ref.y4m"], clips["dis.y4m"]
    single = twinmaf._scorer(**cfg)
    single.score(ref, None, [dis], None, 8, 0, 0)
    segs, first = [], 0
    while True:
        s = twinmaf._scorer(**cfg)
        segs.append(s.compute_segment(ref, None, [dis], None, first, 3, 8, 0, 0))
        first += 3
        if s.frames() < 3:
            break
    merged = twinmaf._scorer(**cfg)
    merged.finish_segments(segs)
    a, b = twinmaf.Result(merged), twinmaf.Result(single)
    assert len(a.frames) == 8 and a.frames == b.frames and a.pooled == b.pooled
    assert a.metrics == b.metrics and len(a.metrics) > len(feats)
    # The client refuses segments of another configuration, or with a gap.
    other = twinmaf._scorer(**dict(cfg, features=("psnr",)))
    with pytest.raises(ValueError, match="another configuration"):
        other.finish_segments(segs)
    with pytest.raises(ValueError, match="frame 0 was next"):
        twinmaf._scorer(**cfg).finish_segments(segs[1:])
    with pytest.raises(ValueError, match="ends short"):
        twinmaf._scorer(**cfg).finish_segments(segs[:1])
    with pytest.raises(ValueError, match="corrupt"):
        twinmaf._scorer(**cfg).finish_segments([segs[0][:-5]] + segs[1:])


def test_out_of_memory_in_the_frame_loop_is_an_error_not_an_abort():
    # Under an address-space limit, the loop thread's allocations fail for a
    # 16384x16384 picture: the run raises, the interpreter lives on.
    import subprocess
    import sys

    code = (
        "import resource, numpy as np, twinmaf\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1700 << 20, 1700 << 20))\n"
        "a = np.zeros((2, 16384, 16384), np.uint8)\n"
        "try:\n"
        "    twinmaf.score(a, a, backend='cpu')\n"
        "    print('scored')\n"
        "except (MemoryError, RuntimeError) as e:\n"
        "    print('raised', e)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(("raised", "scored")), p.stdout


def _child(code, **kwargs):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)), **kwargs)


def test_reading_a_scorer_while_another_thread_scores_raises_not_crashes(clips):
    # In a child: a crash there (the old segfault in format()) fails the test
    # instead of the test run.
    code = (
        "import threading, twinmaf\n"
        f"ref, dis = {clips['ref.y4m']!r}, {clips['dis.y4m']!r}\n"
        "busy = ok = 0\n"
        "for _ in range(5):\n"
        "    s = twinmaf._scorer(models=['vmaf_v0.6.1'], features=[], backend='cpu', threads=1, subsample=1,\n"
        "                        progress=None)\n"
        "    t = threading.Thread(target=s.score, args=(ref, None, [dis], None, 0, 0, 0))\n"
        "    t.start()\n"
        "    while t.is_alive():\n"
        "        for read in (lambda: s.format('json'), s.frame_values, s.metrics, s.pooled, s.info, s.frames):\n"
        "            try:\n"
        "                read()\n"
        "                ok += 1\n"
        "            except RuntimeError as e:\n"
        "                assert 'is running on another thread' in str(e), e\n"
        "                busy += 1\n"
        "    t.join()\n"
        "    assert len(s.frame_values()) == 30 and '\"frames\"' in s.format('json')\n"
        "print('busy', busy)\n"
    )
    p = _child(code)
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    assert int(out.split()[1]) > 0, out


def test_ctrl_c_interrupts_score_on_an_endless_input():
    import signal
    import time

    code = (
        "import signal, sys, twinmaf\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('start', flush=True)\n"
        "try:\n"
        "    twinmaf.score('/dev/zero', '/dev/zero', width=64, height=48, pixel_format='420', bitdepth=8,\n"
        "                  features=['psnr'], backend='cpu')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = _child(code)
    assert p.stdout.readline().strip() == "start"
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except Exception:
        p.kill()
        raise
    assert p.returncode == 3 and "interrupted" in out, (p.returncode, out, err)


def test_score_many_equals_score(clips, tmp_path):
    ref, dis, dis2 = clips["ref.y4m"], clips["dis.y4m"], clips["dis2.y4m"]
    raw = dict(width=W, height=H, pixel_format="420", bitdepth=8)
    jobs = [
        (ref, dis),
        {"reference": ref, "distorted": [dis, dis2], "features": ("psnr",)},
        {"reference": ref, "distorted": tmp_path / "missing.y4m"},
        {"reference": clips["ref.yuv"], "distorted": clips["dis2.yuv"], **raw},
        {"reference": ref, "distorted": dis2, "models": ("vmaf_v0.6.1neg",), "subsample": 2},
    ]
    for in_flight, gpus in ((1, None), (3, [0, 0])):
        out = twinmaf.score_many(jobs, frame_count=6, in_flight=in_flight, gpus=gpus, errors="return")
        assert len(out) == 5
        alone = [
            twinmaf.score(ref, dis, frame_count=6),
            twinmaf.score(ref, dis, features=("psnr",), frame_count=6),
            twinmaf.score(ref, dis2, features=("psnr",), frame_count=6),
            twinmaf.score(clips["ref.yuv"], clips["dis2.yuv"], frame_count=6, **raw),
            twinmaf.score(ref, dis2, models=("vmaf_v0.6.1neg",), subsample=2, frame_count=6),
        ]
        for got, want in ((out[0], alone[0]), (out[1][0], alone[1]), (out[1][1], alone[2]), (out[3], alone[3]),
                          (out[4], alone[4])):
            assert got.frames == want.frames and got.pooled == want.pooled
            files = [json.loads(r.to_json(precision="max")) for r in (got, want)]
            for f in files:
                f.pop("fps")
            assert files[0] == files[1]
        assert isinstance(out[2], OSError) and str(out[2]).startswith("job 2: ") and "missing.y4m" in str(out[2])
    with pytest.raises(OSError, match="job 2: .*missing.y4m") as e:
        twinmaf.score_many(jobs, frame_count=6)
    assert e.value.results[0].pooled == alone[0].pooled and e.value.results[2] is e.value
    with pytest.raises(TypeError, match="job 0: .*'bogus'"):
        twinmaf.score_many([{"reference": ref, "distorted": dis, "bogus": 1}])
    with pytest.raises(ValueError, match="job 1: score_many\\(\\) takes paths"):
        twinmaf.score_many([(ref, dis), (ref, np.zeros((2, H, W), np.uint8))])
    with pytest.raises(ValueError, match="progress"):
        twinmaf.score_many([(ref, dis)], progress=print)
    assert twinmaf.score_many([]) == []
    with pytest.raises(ValueError, match="gpus"):
        twinmaf.score_many([(ref, dis)], gpus="0,1")
