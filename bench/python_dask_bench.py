"""score_many over 32 pairs on a LocalCluster beside a loop of CLI runs.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_dask_bench.py build/release [WORKERS] [FRAMES]

Pairs: the 576x324 synth encodes in tests/data/clips, decoded to Y4M
(FRAMES frames, default 48), each scored with vmaf_v0.6.1; prints pairs/s.
"""
import os
import subprocess
import sys
import tempfile
import time

import twinmaf
import twinmaf.dask
from distributed import Client, LocalCluster


def main():
    build = sys.argv[1]
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    frames = sys.argv[3] if len(sys.argv) > 3 else "48"
    clips = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "clips")
    tmp = tempfile.mkdtemp()
    names = ["", "__x264crf18", "__x264crf28", "__x264crf38", "__x264crf45", "__x265crf28", "__x265crf38", "__scale050"]
    y4m = []
    for n in names:
        out = os.path.join(tmp, f"synth{n}.y4m")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(clips, f"synth_576x324_420p8_48f{n}.mkv"),
                        "-frames:v", frames, "-pix_fmt", "yuv420p", out], check=True)
        y4m.append(out)
    pairs = [(y4m[0], y4m[1 + i % 7]) for i in range(32)]

    t = time.monotonic()
    for ref, dis in pairs:
        subprocess.run([os.path.join(build, "twinmaf"), "-r", ref, "-d", dis, "-q", "--json", "-o", os.devnull], check=True)
    cli = len(pairs) / (time.monotonic() - t)

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        list(twinmaf.dask.score_many(client, pairs[:workers]))  # warm the workers
        t = time.monotonic()
        results = dict(twinmaf.dask.score_many(client, pairs))
        dask = len(pairs) / (time.monotonic() - t)
    assert len(results) == len(pairs)
    print(f"{len(pairs)} pairs of {frames} frames 576x324, vmaf_v0.6.1: CLI loop {cli:.2f} pairs/s, "
          f"score_many on {workers} workers {dask:.2f} pairs/s")


if __name__ == "__main__":  # worker processes re-import this file
    main()
