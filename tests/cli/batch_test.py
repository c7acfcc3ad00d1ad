#!/usr/bin/env python3
"""--batch: every job's outputs equal its own run's (timing fields aside), a
bad job fails alone with one line naming its line, the exit status says a
job failed, --batch-summary holds every job; the same at 1 and 3 jobs in
flight and with the jobs on standard input.

Usage: batch_test.py TWINMAF_BIN"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}"[:2000])


def run(*args, stdin=None):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=300, input=stdin)


def y4m(path, w, h, frames, seed, noise):
    rnd = random.Random(seed)
    base = bytes(rnd.randrange(256) for _ in range(w * h * 3 // 2))
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip C420jpeg\n".encode())
        for k in range(frames):
            f.write(b"FRAME\n")
            f.write(bytes(max(0, min(255, b + rnd.randrange(-noise, noise + 1) + k)) for b in base))


def timeless(path):
    """A result file without its timing (fps), which differs between any two runs."""
    text = open(path).read()
    if path.endswith(".json"):
        d = json.loads(text)
        d.pop("fps", None)
        return d
    return re.sub(r'fps="[^"]*"', "", text)


with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    W, H = 64, 48
    y4m("ref.y4m", W, H, 8, 1, 0)
    y4m("a.y4m", W, H, 8, 1, 6)
    y4m("b.y4m", W, H, 5, 1, 20)  # shorter: scored over its own length
    y4m("c.y4m", W, H, 8, 1, 40)
    raw = open("c.y4m", "rb").read()
    with open("c.yuv", "wb") as f:  # c's frames as raw YUV
        body = raw[raw.index(b"\n") + 1:]
        for frame in body.split(b"FRAME\n")[1:]:
            f.write(frame)

    jobs = [
        {"reference": "ref.y4m", "distorted": "a.y4m", "output": "j1.json"},
        {"reference": "ref.y4m", "distorted": ["a.y4m", "b.y4m"], "output": ["j2a.json", "j2b.json"],
         "feature": ["psnr", "float_ssim"]},
        {"reference": "missing.y4m", "distorted": "a.y4m", "output": "j3.json"},
        {"reference": "ref.y4m", "distorted": "c.yuv", "output": "j4.xml", "json": False, "xml": True,
         "width": W, "height": H, "pixel_format": "420", "bitdepth": 8, "frame_cnt": 6},
        {"reference": "ref.y4m", "distorted": "c.y4m", "output": "j5.json", "model": "version=vmaf_v0.6.1neg",
         "subsample": 2},
    ]
    # The same jobs run alone (the batch's command line adds --json
    # --precision max to every job).
    alone = {
        1: ["-r", "ref.y4m", "-d", "a.y4m", "-o", "s1.json"],
        2: ["-r", "ref.y4m", "-d", "a.y4m", "-d", "b.y4m", "-o", "s2a.json", "-o", "s2b.json", "--feature", "psnr",
            "--feature", "float_ssim"],
        4: ["-r", "ref.y4m", "-d", "c.yuv", "-w", W, "-h", H, "-p", "420", "-b", 8, "--frame_cnt", 6, "--json",
            "--xml", "-o", "s4.xml"],
        5: ["-r", "ref.y4m", "-d", "c.y4m", "-o", "s5.json", "--model", "version=vmaf_v0.6.1neg", "--subsample", 2],
    }
    for k, args in alone.items():
        p = run("--json", *args, "--precision", "max", "-q")
        check(f"job {k} alone", p.returncode == 0, p.stderr)
    outputs = {1: ["j1.json"], 2: ["j2a.json", "j2b.json"], 4: ["j4.xml"], 5: ["j5.json"]}
    mine = {1: ["s1.json"], 2: ["s2a.json", "s2b.json"], 4: ["s4.xml"], 5: ["s5.json"]}

    with open("jobs.jsonl", "w") as f:
        for k, j in enumerate(jobs):
            if k == 2:
                f.write("\n")  # a blank line: skipped, lines still counted
            f.write(json.dumps(j) + "\n")
    lines = {1: 1, 2: 2, 3: 4, 4: 5, 5: 6}  # job -> line
    for in_flight in (1, 3):
        for o in sum(outputs.values(), []) + ["j3.json", "summary.jsonl"]:
            if os.path.exists(o):
                os.remove(o)
        p = run("--batch", "jobs.jsonl", "--json", "--precision", "max", "--batch-jobs", in_flight,
                "--batch-summary", "summary.jsonl")
        tag = f"--batch-jobs {in_flight}"
        check(f"{tag}: exit 2 (a job failed)", p.returncode == 2, p.stderr)
        errors = [l for l in p.stderr.splitlines() if l.startswith("twinmaf: error: ")]
        check(f"{tag}: one error line, naming line 4 and the file", len(errors) == 1 and
              errors[0].startswith("twinmaf: error: jobs.jsonl:4: ") and "missing.y4m" in errors[0], p.stderr)
        check(f"{tag}: no output of the failed job", not os.path.exists("j3.json"))
        for k in outputs:
            for got, want in zip(outputs[k], mine[k]):
                check(f"{tag}: job {k} {got} == its own run's", os.path.exists(got) and timeless(got) == timeless(want),
                      got)
        check(f"{tag}: stdout names each job's line",
              "jobs.jsonl:1: vmaf_v0.6.1: " in p.stdout and "jobs.jsonl:2: b.y4m: vmaf_v0.6.1: " in p.stdout and
              "jobs.jsonl:6: vmaf_v0.6.1neg: " in p.stdout, p.stdout)
        summary = [json.loads(l) for l in open("summary.jsonl")]
        check(f"{tag}: a summary line per job, in order", [s["line"] for s in summary] == [1, 2, 4, 5, 6], summary)
        by_line = {s["line"]: s for s in summary}
        check(f"{tag}: summary error of the failed job", "missing.y4m" in (by_line[4]["error"] or ""), by_line[4])
        for k in (1, 2, 5):
            s = by_line[lines[k]]
            for lane, want in enumerate(mine[k]):
                d = json.load(open(want))
                frames = len(d["frames"]) * (2 if k == 5 else 1)  # --subsample 2 writes every other frame
                check(f"{tag}: job {k} summary pooled == result file", s["error"] is None and
                      s["pooled"][lane]["vmaf"] == d["pooled_metrics"]["vmaf"]["mean"] and
                      s["frames"][lane] == frames, (s, d["pooled_metrics"].get("vmaf")))
        check(f"{tag}: the shorter encode's frames", by_line[2]["frames"] == [8, 5], by_line[2])

    # Jobs spread over GPUs (--gpu 0,0: two engines on device 0; on a machine
    # without one the jobs run on the CPU): the same files.
    for o in sum(outputs.values(), []):
        os.remove(o)
    p = run("--batch", "jobs.jsonl", "--json", "--precision", "max", "--gpu", "0,0", "-q")
    check("--gpu 0,0: exit 2 (a job failed)", p.returncode == 2, p.stderr)
    for k in outputs:
        for got, want in zip(outputs[k], mine[k]):
            check(f"--gpu 0,0: job {k} {got} == its own run's", os.path.exists(got) and timeless(got) == timeless(want),
                  got)

    # Jobs on standard input; a job's key replaces the default of its flag.
    os.remove("j1.json")
    p = run("--batch", "-", "--json", "--precision", "max", "--model", "version=vmaf_v0.6.1neg",
            stdin=json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "output": "j1.json",
                              "model": "version=vmaf_v0.6.1"}) + "\n")
    check("stdin: scored", p.returncode == 0 and timeless("j1.json") == timeless("s1.json"), p.stderr)

    # Jobs refused before scoring, each alone, one line naming its line.
    bad = [
        ("not json", "not a JSON object"),
        ("[1, 2]", "a job is a JSON object"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "batch": "x"}), '"batch" is not a job\'s flag'),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "cpumask": 8}), '"cpumask" is not a job\'s flag'),
        (json.dumps({"reference": "-", "distorted": "a.y4m"}), "reads files, not standard input"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "output": "-"}), "writes files"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "output": "x1.json"}), None),
        (json.dumps({"reference": "ref.y4m", "distorted": "b.y4m", "output": "x1.json"}), "x1.json is also written by line 7"),
        (json.dumps({"reference": "x1.json", "distorted": "b.y4m", "output": "x2.json"}), "x1.json is written by line 7"),
        (json.dumps({"reference": "ref.y4m", "distorted": {"path": "a.y4m"}}), "a value is a string"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "threads": "many"}), "--threads"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "bogus": 1}), "--bogus"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m", "output": "ref.y4m"}), "would overwrite the input"),
        (json.dumps({"reference": "ref.y4m", "distorted": "a.y4m"}), None),
    ]
    with open("bad.jsonl", "w") as f:
        f.write("".join(line + "\n" for line, _ in bad))
    p = run("--batch", "bad.jsonl", "-q")
    q = run("--batch", "-", "--gpu", "all", "-q", stdin=json.dumps({"reference": "ref.y4m", "distorted": "a.y4m",
                                                                    "gpu": 0}) + "\n")
    check("a job's gpu under --gpu all: refused", q.returncode == 2 and
          "the command line's --gpu list assigns each job's GPU" in q.stderr, q.stderr)
    errors = [l for l in p.stderr.splitlines() if l.startswith("twinmaf: error: ")]
    want = [(n, needle) for n, (_, needle) in enumerate(bad, 1) if needle]
    check("bad jobs: exit 2", p.returncode == 2, p.stderr)
    check("bad jobs: one line each", len(errors) == len(want) == len(p.stderr.strip().splitlines()), p.stderr)
    for n, needle in want:
        line = [l for l in errors if l.startswith(f"twinmaf: error: bad.jsonl:{n}: ")]
        check(f"bad job line {n}", len(line) == 1 and needle in line[0], (needle, line))
    check("bad jobs: the good ones ran", os.path.exists("x1.json"))

    # Errors of the batch itself: one line, exit 2.
    for args, needle in ((["--batch", "nowhere.jsonl"], "cannot read nowhere.jsonl"),
                         (["--batch-summary", "s.jsonl", "-r", "ref.y4m", "-d", "a.y4m"], "need --batch"),
                         (["--batch", "empty.jsonl"], "no job"),
                         (["--batch", "jobs.jsonl", "--batch-jobs", "x"], "--batch-jobs"),
                         (["--batch", "jobs.jsonl", "--gpu", "0,x"], "--gpu"),
                         (["-r", "ref.y4m", "-d", "a.y4m", "--gpu", "0,1"], "spreads --batch jobs")):
        open("empty.jsonl", "w").write("\n\n")
        p = run(*args)
        lines = p.stderr.strip().splitlines()
        check(f"{args}: one error line", p.returncode == 2 and len(lines) == 1 and needle in lines[0], p.stderr)

for f in failures:
    print("FAIL", f)
print(f"batch_test: {len(failures)} failures")
sys.exit(1 if failures else 0)
