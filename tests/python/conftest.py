"""Shared inputs of the Python tests: short clips decoded from the pairs
shipped in tests/data/clips, and the CLI (TWINMAF_CLI) for reference runs."""
import json
import os
import subprocess

import pytest

CLIPS = os.path.join(os.path.dirname(__file__), "..", "data", "clips")
SYNTH = os.path.join(CLIPS, "synth_576x324_420p8_48f")
KLEIBER10 = os.path.join(CLIPS, "kleiber_1920x1080_420p10_24f")


def ffmpeg(src, dst, frames, *args):
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-i", src, "-frames:v", str(frames), *args, dst], check=True
    )


@pytest.fixture(scope="session")
def clips(tmp_path_factory):
    """y4m, raw 4:2:0 and raw luma-only (4:0:0) copies of short pairs."""
    d = tmp_path_factory.mktemp("clips")
    out = {}
    for name, src in (("ref", SYNTH + ".mkv"), ("dis", SYNTH + "__x264crf28.mkv"), ("dis2", SYNTH + "__x265crf38.mkv")):
        out[name + ".y4m"] = str(d / f"{name}.y4m")
        ffmpeg(src, out[name + ".y4m"], 30, "-pix_fmt", "yuv420p")
        out[name + ".yuv"] = str(d / f"{name}.yuv")
        ffmpeg(src, out[name + ".yuv"], 8, "-f", "rawvideo", "-pix_fmt", "yuv420p")
        out[name + ".gray"] = str(d / f"{name}.gray.yuv")
        ffmpeg(src, out[name + ".gray"], 8, "-f", "rawvideo", "-pix_fmt", "gray")
    for name, src in (("ref10", KLEIBER10 + ".mkv"), ("dis10", KLEIBER10 + "__x265crf28.mkv")):
        out[name + ".yuv"] = str(d / f"{name}.yuv")
        ffmpeg(src, out[name + ".yuv"], 2, "-f", "rawvideo", "-pix_fmt", "yuv420p10le")
    return out


def cli_json(ref, dis, *args, raw=None, tmp):
    """The CLI's JSON run of a pair, every number printed with %.17g."""
    out = os.path.join(tmp, "cli.json")
    cmd = [os.environ["TWINMAF_CLI"], "-r", ref, "-d", dis, "--json", "-o", out, "--precision", "max", "-q"]
    if raw:
        cmd += ["-w", str(raw[0]), "-h", str(raw[1]), "-p", raw[2], "-b", str(raw[3])]
    subprocess.run(cmd + list(args), check=True)
    with open(out) as f:
        return json.load(f)


def assert_equals_cli(result, cli):
    """Every per-frame and pooled value ==, and the same metric names."""
    assert len(result.frames) == len(cli["frames"]) > 0
    for mine, theirs in zip(result.frames, cli["frames"]):
        assert mine == theirs["metrics"]
    assert result.pooled == cli["pooled_metrics"]
    assert result.aggregates == cli.get("aggregate_metrics", {})
