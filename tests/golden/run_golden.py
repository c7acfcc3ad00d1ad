#!/usr/bin/env python3
"""Golden test: every selected libvmaf run of the golden set, replayed through
the twinmaf CLI, compared value by value with == (doubles printed %.17g).

For each pair directory in RUNS and each run kind asked for (psnr, motion, ...):
  - the run's .cmd (libvmaf's command line) is replayed with twinmaf, the clip
    names mapped to CLIPS and `--precision max` added; every per-frame value,
    pooled value and aggregate must equal the .hp17g.json, with the same names
    in the same order;
  - the same command at the default precision must reproduce libvmaf's .json
    (and .xml/.csv/.sub where the run has them) byte for byte, apart from the
    version and fps values;
  - a run where libvmaf failed (rc != 0) must fail with a one-line error.
Clips cut short in the repository (frames.tsv) are scored on their first N
frames: values of frames whose result cannot depend on later frames are
compared (all but the last frame for temporal features and models), files and
pooled values are not. Exit 1 on any mismatch; a summary with counts is printed.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Kinds whose values may depend on later frames (the CTC presets carry motion).
TEMPORAL = re.compile(r"motion|vmaf|ctc")

# Runs where libvmaf exits 0 but twinmaf deliberately refuses the input with a
# one-line error (docs/cli.md, "deliberate deviations"): (run regex, error).
DEVIATIONS = [
    # libvmaf computes vif below 16x16 from mirrored leftovers of the previous
    # scale: deterministic, but not vif of the input (docs/vif.md).
    (re.compile(r"^noise_(8x8|17x9)_.*/vif$"), "vif: needs a luma plane of at least 16x16"),
    # libvmaf prints an error, scores no frame and still exits 0.
    (re.compile(r"_16b_.*/psnr_hvs$"), "psnr_hvs: bit depth 16 is not supported"),
    # libvmaf prints "scale below 1x1" for every frame, scores none and exits 0.
    (re.compile(r"^noise_(3x3|8x8|17x9|64x48|175x176|176x175)_.*/float_ms_ssim(_\w+)?$"),
     "float_ms_ssim: needs a luma plane of at least 176x176"),
    # Below 17x17 (bands under 2x2 at scale 3) libvmaf's float ADM reads
    # outside its buffers and prints values such as adm2 3.5 (docs/float_adm.md).
    (re.compile(r"^noise_(2x2|3x3|5x4|8x8|16x17)_.*/float_adm$"), "is below the minimum size 17x17"),
    # Where a scale's filter (or the prescale resampler) would reach past its
    # image, libvmaf's float VIF mirrors to indices outside its buffers and
    # prints values such as scale3 = 1.006 or 0 (docs/float_vif.md).
    (re.compile(r"^noise_(2x2|3x3|5x4|8x8|15x16)_.*/float_vif$"), "is below the minimum size 16x16"),
    (re.compile(r"^noise_64x48_.*/float_vif_ks3711$"), "is below the minimum size 56x56"),
    (re.compile(r"^noise_23x24_.*/float_vif_ks15$"), "is below the minimum size 24x24"),
    (re.compile(r"^noise_3x3_.*/float_vif_ps4_bicubic$"), "is below the minimum size 16x16"),
    (re.compile(r"^noise_5x4_.*/float_vif_ps4_lanczos4$"), "is below the minimum size 6x6 of vif_prescale_method"),
    # libvmaf logs the bad option on every frame, scores none and exits 0.
    (re.compile(r"/float_vif_bad_(ks|pm)$"), "is not one of"),
    # libvmaf scales 4:2:0/4:2:2 chroma with a wrong row stride, reading memory
    # it never wrote (docs/float_motion.md).
    (re.compile(r"_(420|422)_.*/float_motion_mau_mdc$"), "supported for 4:4:4 only"),
    # libvmaf's cambi refuses both sides below 216 at init; with --threads the
    # CLI then scores no frame and still exits 0 (rc 234 without threads).
    (re.compile(r"^noise_(3x3|8x8|17x9|64x48)_.*/cambi$"), "cambi: needs a width or height of at least 216"),
]


# Runs whose values depend on the processor: libvmaf's float ADM divides with
# the SSE approximate reciprocal (rcpss), which Intel and AMD implement with
# different tables; twinmaf uses the same instruction, so it equals libvmaf on
# the same machine (docs/float_adm.md). The oracle runs were recorded on an
# Intel CPU; recordings made elsewhere sit beside them as
# <kind>.rcpss-<fingerprint>.{hp17g.json,json} (record_oracle.sh's VARIANT) and
# are compared on processors with that RCPSS fingerprint (--rcpss,
# `twinmaf_noiseclip --rcpss`). Elsewhere these runs must still succeed, but
# their values are not compared.
VENDOR_DEPENDENT = re.compile(r"/(float_adm|vmaf_float_)[\w.]*$")  # model names hold dots (v0.6.1)


def cpu_vendor():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


class Processor:
    """Which recordings of processor-dependent values this machine compares."""

    def __init__(self, rcpss_path):
        self.intel = cpu_vendor() == "GenuineIntel"
        self.rcpss = open(rcpss_path).read().strip() if rcpss_path else ""

    def suffix(self, base):
        """The recording of run `base` whose values hold here: "" (the oracle's
        Intel recording) on Intel, ".rcpss-<fingerprint>" where this processor's
        recording exists, None where none does."""
        if self.intel:
            return ""
        suffix = f".rcpss-{self.rcpss}"
        return suffix if self.rcpss and os.path.exists(base + suffix + ".hp17g.json") else None


def load_frames_tsv(path):
    frames = {}
    if path:
        with open(path) as f:
            for line in f:
                name, n = line.rstrip("\n").split("\t")
                frames[name] = None if n == "all" else int(n)
    return frames


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


class Checker:
    def __init__(self, args):
        self.args = args
        self.frames = load_frames_tsv(args.frames)
        self.errors = []
        self.stats = dict(runs=0, error_runs=0, deviations=0, frames=0, values=0, files=0, truncated=0,
                          vendor_skipped=0, other_rcpss=0)
        self.processor = Processor(args.rcpss)
        self.missing = set()

    def fail(self, run, msg):
        self.errors.append(f"{run}: {msg}")

    def clip_path(self, name):
        """The clip in the first --clips directory that holds it (else the first's path)."""
        for d in self.args.clips:
            path = os.path.join(d, name)
            if os.path.exists(path):
                return path
        return os.path.join(self.args.clips[0], name)

    def clip_frames(self, name):
        """None: whole clip; int: first N frames; False: clip not available."""
        if not os.path.exists(self.clip_path(name)):
            return False
        return self.frames.get(name)

    def command(self, tokens, out_path, precision_max):
        cmd = [self.args.bin]
        it = iter(tokens[1:])
        for t in it:
            if t in ("-r", "-d", "--reference", "--distorted"):
                cmd += [t, self.clip_path(next(it))]
            elif t in ("-o", "--output"):
                next(it)
                cmd += [t, out_path]
            elif t in ("-m", "--model"):
                v = next(it)
                v = re.sub(r"path=model/(?:[^/:]+/)*([^/:]+\.json)",
                           lambda m: "path=" + os.path.join(self.args.models, m.group(1)), v)
                cmd += [t, v]
            else:
                cmd.append(t)
        if precision_max:
            cmd += ["--precision", "max"]
        return cmd

    def run(self, argv, label):
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            self.fail(label, "timed out: " + " ".join(argv))
            return None
        return p

    def check_run(self, pair_dir, kind):
        label = f"{os.path.basename(pair_dir)}/{kind}"
        base = os.path.join(pair_dir, kind)
        with open(base + ".cmd") as f:
            tokens = shlex.split(f.readline())
        golden_rc = int(open(base + ".rc").read().strip()) if os.path.exists(base + ".rc") else 0
        ref = tokens[tokens.index("-r") + 1]
        dis = tokens[tokens.index("-d") + 1]
        avail = [self.clip_frames(ref), self.clip_frames(dis)]
        if False in avail:
            self.missing.add(ref if avail[0] is False else dis)
            return
        limit = min([n for n in avail if n is not None], default=None)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            exact = self.command(tokens, out, True)
            exact_json = "--json" in exact
            if limit is not None:
                exact = self.with_frame_cnt(exact, limit)
            p = self.run(exact, label)
            if p is None:
                return
            self.stats["runs"] += 1
            if golden_rc != 0:
                self.stats["error_runs"] += 1
                lines = p.stderr.strip().splitlines()
                if p.returncode == 0:
                    self.fail(label, f"libvmaf failed (rc {golden_rc}) but twinmaf succeeded")
                elif p.returncode < 0 or p.returncode >= 128:
                    self.fail(label, f"twinmaf crashed (rc {p.returncode})")
                elif not lines or not lines[-1].startswith("twinmaf: error: "):
                    self.fail(label, f"no one-line error: {p.stderr!r}")
                return
            if p.returncode != 0:
                for pattern, message in DEVIATIONS:
                    if pattern.search(label) and p.returncode == 2 and message in p.stderr:
                        self.stats["deviations"] += 1
                        return
                self.fail(label, f"rc {p.returncode}: {p.stderr.strip()}")
                return
            suffix = ""
            if VENDOR_DEPENDENT.search(label):
                suffix = self.processor.suffix(base)
                if suffix is None:
                    self.stats["vendor_skipped"] += 1
                    return
                if suffix:
                    self.stats["other_rcpss"] += 1
            if exact_json and os.path.exists(base + suffix + ".hp17g.json"):
                self.compare_values(label, out, base + suffix + ".hp17g.json", limit, kind)
            if limit is None:
                self.compare_file(label, tokens, tmp, base, kind, suffix)
            else:
                self.stats["truncated"] += 1

    @staticmethod
    def with_frame_cnt(cmd, limit):
        if "--frame_cnt" in cmd:
            i = cmd.index("--frame_cnt")
            cmd[i + 1] = str(min(int(cmd[i + 1]), limit))
        else:
            cmd += ["--frame_cnt", str(limit)]
        return cmd

    def compare_values(self, label, ours_path, golden_path, limit, kind):
        ours = json.load(open(ours_path))
        gold = json.load(open(golden_path))
        gframes = gold["frames"]
        if limit is not None:
            cut = limit - 1 if TEMPORAL.search(kind) else limit
            gframes = [f for f in gframes if f["frameNum"] < cut]
        oframes = {f["frameNum"]: f for f in ours["frames"]}
        for g in gframes:
            o = oframes.get(g["frameNum"])
            if o is None:
                self.fail(label, f"frame {g['frameNum']} missing")
                return
            gm, om = list(g["metrics"].items()), list(o["metrics"].items())
            if [k for k, _ in gm] != [k for k, _ in om]:
                self.fail(label, f"frame {g['frameNum']}: names {[k for k, _ in om]} != {[k for k, _ in gm]}")
                return
            for (k, gv), (_, ov) in zip(gm, om):
                self.stats["values"] += 1
                if not same(gv, ov):
                    self.fail(label, f"frame {g['frameNum']} {k}: {ov!r} != libvmaf {gv!r}")
                    return
            self.stats["frames"] += 1
        if limit is None:
            if len(ours["frames"]) != len(gold["frames"]):
                self.fail(label, f"{len(ours['frames'])} frames != libvmaf {len(gold['frames'])}")
            for section in ("pooled_metrics", "aggregate_metrics"):
                if json.dumps(ours[section]) != json.dumps(gold[section]):
                    o, g = ours[section], gold[section]
                    if list(o) != list(g) or any(not self.same_tree(o[k], g[k]) for k in g):
                        self.fail(label, f"{section} differ: {o} != {g}")
                        continue
                self.stats["values"] += sum(len(v) if isinstance(v, dict) else 1 for v in gold[section].values())

    def same_tree(self, a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            return list(a) == list(b) and all(self.same_tree(a[k], b[k]) for k in a)
        return same(a, b)

    def compare_file(self, label, tokens, tmp, base, kind, suffix=""):
        """Default-precision output, byte for byte apart from version/fps."""
        golden_out = tokens[tokens.index("-o") + 1] if "-o" in tokens else None
        if not golden_out:
            return
        stem, ext = os.path.splitext(os.path.basename(golden_out))
        golden_file = os.path.join(os.path.dirname(base), stem + suffix + ext)
        if not os.path.exists(golden_file) or golden_file.endswith(".hp17g.json"):
            return
        out = os.path.join(tmp, "default" + os.path.splitext(golden_file)[1])
        p = self.run(self.command(tokens, out, False), label)
        if p is None or p.returncode != 0:
            self.fail(label, f"default-precision run failed: {p.stderr.strip() if p else ''}")
            return
        strip = re.compile(r'(version="[^"]*"|"version": "[^"]*"|fps="[^"]*"|"fps": [^,]*,)')
        ours = strip.sub("", open(out).read())
        gold = strip.sub("", open(golden_file).read())
        self.stats["files"] += 1
        if ours != gold:
            for i, (a, b) in enumerate(zip(ours.splitlines(), gold.splitlines())):
                if a != b:
                    self.fail(label, f"{os.path.basename(golden_file)} line {i + 1}: {a!r} != libvmaf {b!r}")
                    return
            self.fail(label, f"{os.path.basename(golden_file)}: lengths differ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--runs", required=True, nargs="+", help="run directories (golden set, oracle recordings)")
    ap.add_argument("--clips", required=True, nargs="+",
                    help="clip directories, searched in order (decoded clips, generated noise clips)")
    ap.add_argument("--models", default="")
    ap.add_argument("--frames", help="frames.tsv of cut clips")
    ap.add_argument("--kinds", required=True, help="comma-separated run names (psnr,motion,...)")
    ap.add_argument("--allow-missing", default="", help="regex of clip names that may be absent")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--rcpss", help="file holding this processor's RCPSS fingerprint (twinmaf_noiseclip --rcpss)")
    args = ap.parse_args()
    c = Checker(args)
    kinds = args.kinds.split(",")
    tasks = []
    pairs = sorted((pair, os.path.join(runs, pair)) for runs in args.runs for pair in os.listdir(runs))
    for pair, d in pairs:
        for kind in kinds:
            for variant in (kind, kind + ".xml", kind + ".csv", kind + ".sub"):
                if os.path.exists(os.path.join(d, variant + ".cmd")):
                    tasks.append((d, variant))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        list(ex.map(lambda t: c.check_run(*t), tasks))
    allowed = re.compile(args.allow_missing) if args.allow_missing else None
    unexpected = sorted(m for m in c.missing if not (allowed and allowed.search(m)))
    for m in unexpected:
        c.errors.append(f"clip {m} is missing")
    s = c.stats
    print(f"golden[{args.kinds}]: {len(tasks)} runs selected, {s['runs']} replayed "
          f"({s['error_runs']} libvmaf-failure runs, {s['deviations']} documented refusals), {s['frames']} frames, {s['values']} values ==, "
          f"{s['files']} files byte-compared, {s['truncated']} on cut clips, "
          f"{len(c.missing)} clips absent{' (allowed)' if c.missing and not unexpected else ''}, "
          f"{s['other_rcpss']} runs compared with recordings of this processor's RCPSS ({c.processor.rcpss}), "
          f"{s['vendor_skipped']} runs with processor-dependent values not compared (no recording for it)")
    if s["runs"] == 0:
        c.errors.append("no run was replayed")
    for e in c.errors[:50]:
        print("FAIL", e)
    if len(c.errors) > 50:
        print(f"... and {len(c.errors) - 50} more")
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main())
