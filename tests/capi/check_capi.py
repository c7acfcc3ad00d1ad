#!/usr/bin/env python3
"""The C API against libvmaf's golden values (tests/capi/CMakeLists.txt).

For a few golden pairs, capi_score (a C program on libvmaf's documented API)
scores the pair through libvmaf.so with vmaf_v0.6.1 (by version),
vmaf_v1.0.16_3d0h (from its file) and psnr with an option dictionary in one
context, pictures from vmaf_picture_alloc and from the preallocated pool.
Every per-frame value it reads back (vmaf_feature_score_at_index under the
stored names, vmaf_score_at_index) and every pooled value
(vmaf_feature_score_pooled, vmaf_score_pooled) must equal the runs'
.hp17g.json values (==). Then the libvmaf CLI's own runs are replayed through
the C API (same models, features and threads) and the JSON that
vmaf_write_output writes must equal libvmaf's .json byte for byte, and its
XML, JSON, CSV and SUB files the twinmaf CLI's on the same run (--cli),
apart from the version and fps lines. With --collections (the oracle's runs), its
bootstrap-collection runs (vmaf_float_b_v0.6.3) on the small pairs; their
values depend on the processor (float ADM's RCPSS, docs/float_adm.md): the
oracle's Intel recordings are compared on Intel CPUs, its other recordings
(<kind>.rcpss-<fingerprint>.hp17g.json) on processors with that fingerprint
(--rcpss); elsewhere the runs must succeed but their values are not compared.

Exit 1 on any difference; prints the counts compared.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from run_golden import Processor  # noqa: E402

# The stored names of the printed (aliased) ones (libvmaf feature/alias.c).
STORED = {f"integer_{x}": f"VMAF_integer_feature_{x}_score"
          for x in ["adm2", "aim", "adm3", "motion", "motion2", "motion3"] + [f"vif_scale{i}" for i in range(4)]}
STORED.update({x: f"VMAF_feature_{x}_score" for x in
               ["adm2", "aim", "adm3", "motion", "motion2", "motion3"] + [f"adm_scale{i}" for i in range(4)] +
               [f"vif_scale{i}" for i in range(4)]})
STORED.update({"cambi": "Cambi_feature_cambi_score", "speed_temporal": "Speed_temporal_feature_speed_temporal_score"})
STORED.update({f"speed_chroma_{c}": f"Speed_chroma_feature_speed_chroma_{c}_score" for c in ("u", "v", "uv")})

# (pair, threads, preallocated reference pictures): 8-bit, 10- and 12-bit
# odd sizes, 4:2:0 and 4:2:2.
CASES = [
    ("synth_576x324_420p8_48f__x264crf38", 0, True),
    ("noise_357x353_420_10b_6f_s14", 2, False),
    ("noise_357x353_422_12b_6f_s19", 1, True),
]
POOLS = ("min", "max", "mean", "harmonic_mean")
FORMATS = ("xml", "json", "csv", "sub")


def mask(text):
    """A result file without its version and fps (neither is deterministic)."""
    text = re.sub(r'^  "(version|fps)": .*$', "", text, flags=re.M)
    return re.sub(r'^(<VMAF version=|  <fyi fps=).*$', "", text, flags=re.M)


class Check:
    def __init__(self, args):
        self.args = args
        self.values = 0
        self.files = 0
        self.collection_runs = 0
        self.vendor_skipped = 0
        self.processor = Processor(args.rcpss)
        # Clips cut short in the repository: name -> frames (frames.tsv).
        self.cut = {}
        with open(os.path.join(args.clips, "frames.tsv")) as f:
            for line in f:
                name, n = line.split()
                if n != "all":
                    self.cut[name] = int(n)
        self.failures = []

    def fail(self, label, msg):
        self.failures.append(f"{label}: {msg}")
        print(f"FAIL {label}: {msg}", file=sys.stderr)

    def run(self, argv):
        p = subprocess.run([self.args.bin] + argv, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"capi_score {' '.join(argv)}: rc {p.returncode}: {p.stderr.strip()}")
        out = {}
        for line in p.stdout.splitlines():
            parts = line.split()
            out[tuple(parts[:-1] if parts[0] != "collection_pooled" else parts[:3])] = (
                parts[-1] if parts[0] != "collection_pooled" else parts[3:])
        return out

    def same(self, label, ours, gold):
        self.values += 1
        if ours is None or ours == "none":
            self.fail(label, f"no value (libvmaf {gold!r})")
            return
        if float(ours) != gold and not (gold != gold and float(ours) != float(ours)):
            self.fail(label, f"{ours} != libvmaf {gold!r}")

    def pair_args(self, pair):
        return self.input_args(os.path.join(self.args.runs, pair, "vmaf_v0.6.1.cmd"))

    def input_args(self, cmd):
        """The inputs of a recorded libvmaf run (its .cmd file)."""
        tokens = shlex.split(open(cmd).readline())
        arg = lambda flag: tokens[tokens.index(flag) + 1]
        clips = self.args.clips
        return [os.path.join(clips, arg("-r")), os.path.join(clips, arg("-d")), arg("-w"), arg("-h"), arg("-p"),
                arg("-b")]

    def compare_run(self, label, out, gold, model_names, limit=None):
        """Every value of a golden run: per frame, pooled. On clips cut to
        `limit` frames: the frames before the last (whose temporal values
        cannot depend on later frames), nothing pooled."""
        for frame in gold["frames"]:
            i = frame["frameNum"]
            if limit is not None and i >= limit - 1:
                continue
            for name, v in frame["metrics"].items():
                key = ("model", model_names[name], str(i)) if name in model_names else \
                    ("feature", STORED.get(name, name), str(i))
                self.same(f"{label} frame {i} {name}", out.get(key), v)
        if limit is not None:
            return
        for name, pooled in gold["pooled_metrics"].items():
            for method in POOLS:
                key = ("model_pooled", model_names[name], method) if name in model_names else \
                    ("pooled", STORED.get(name, name), method)
                self.same(f"{label} pooled {name} {method}", out.get(key), pooled[method])

    def golden_case(self, pair, threads, prealloc):
        run = lambda kind: json.load(open(os.path.join(self.args.runs, pair, kind + ".hp17g.json")))
        gold = {k: run(k) for k in ("vmaf_v0.6.1", "vmaf_v1.0.16_3d0h", "psnr_mse_apsnr")}
        names = set()
        for g in gold.values():
            for frame in g["frames"]:
                names.update(n for n in frame["metrics"] if n != "vmaf")
        argv = ["-t", str(threads), "-m", "version:vmaf_v0.6.1:vmaf",
                "-m", f"path:{os.path.join(self.args.models, 'vmaf_v1.0.16_3d0h.json')}:vmaf_v1016",
                "-f", "psnr,enable_mse=true,enable_apsnr=true,min_sse=0.0"]
        if prealloc:
            argv.append("-p")
        for n in sorted(names):
            argv += ["-q", STORED.get(n, n)]
        out = self.run(argv + self.pair_args(pair))
        self.compare_run(f"{pair}/vmaf_v0.6.1", out, gold["vmaf_v0.6.1"], {"vmaf": "vmaf"})
        self.compare_run(f"{pair}/vmaf_v1.0.16_3d0h", out, gold["vmaf_v1.0.16_3d0h"], {"vmaf": "vmaf_v1016"})
        self.compare_run(f"{pair}/psnr_mse_apsnr", out, gold["psnr_mse_apsnr"], {})

    def cli_file(self, pair, kind, argv):
        """libvmaf's CLI run `kind` through the C API: the .json equals
        libvmaf's, and each of the four files equals the twinmaf CLI's on the
        same run, byte for byte apart from the version and fps lines."""
        tokens = shlex.split(open(os.path.join(self.args.runs, pair, kind + ".cmd")).readline())
        threads = tokens[tokens.index("--threads") + 1] if "--threads" in tokens else "0"
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "out")
            self.run(["-t", threads, "-o", prefix] + argv + self.pair_args(pair))
            ours = {ext: open(f"{prefix}.{ext}").read() for ext in FORMATS}
            gold = open(os.path.join(self.args.runs, pair, kind + ".json")).read()
            self.files += 1
            if mask(ours["json"]) != mask(gold):
                self.fail(f"{pair}/{kind}.json", "differs from libvmaf's file")
            for ext in FORMATS:
                cli = tokens[1:]
                for flag in ("-r", "-d"):
                    i = cli.index(flag) + 1
                    cli[i] = os.path.join(self.args.clips, cli[i])
                cli[cli.index("-o") + 1] = f"{prefix}.cli.{ext}"
                cli = [f"--{ext}" if t in ("--xml", "--json", "--csv", "--sub") else t for t in cli]
                p = subprocess.run([self.args.cli] + cli, capture_output=True, text=True)
                if p.returncode != 0:
                    raise RuntimeError(f"twinmaf {' '.join(cli)}: rc {p.returncode}: {p.stderr.strip()}")
                self.files += 1
                if mask(ours[ext]) != mask(open(f"{prefix}.cli.{ext}").read()):
                    self.fail(f"{pair}/{kind}.{ext}", "differs from the twinmaf CLI's file")

    def collections(self):
        """The oracle's bootstrap-collection runs on small pairs (at most
        576x324): main model, members, statistics, per frame and pooled."""
        for pair in sorted(os.listdir(self.args.collections)):
            for cmd in sorted(os.listdir(os.path.join(self.args.collections, pair))):
                m = re.fullmatch(r"(vmaf\w*_b_v[\d.]+)\.cmd", cmd)
                if not m:
                    continue
                base = os.path.join(self.args.collections, pair, m.group(1))
                args = self.input_args(base + ".cmd")
                if int(args[2]) * int(args[3]) > 576 * 324:
                    continue
                limits = [self.cut.get(os.path.basename(a)) for a in args[:2]]
                limit = min((n for n in limits if n is not None), default=None)
                # The Intel recording gives the names wherever no recording of
                # this processor's RCPSS exists; its values only on Intel.
                suffix = self.processor.suffix(base)
                compared = suffix is not None
                gold = json.load(open(base + (suffix or "") + ".hp17g.json"))
                names = set()
                for frame in gold["frames"]:
                    names.update(n for n in frame["metrics"] if n != "vmaf")
                argv = ["-c", f"version:{m.group(1)}:vmaf"]
                for n in sorted(names):
                    argv += ["-q", STORED.get(n, n)]
                out = self.run(argv + args)
                self.collection_runs += 1
                if not compared:
                    self.vendor_skipped += 1
                    continue
                self.compare_run(f"{pair}/{m.group(1)}", out, gold, {"vmaf": "vmaf"}, limit)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--cli", required=True, help="the twinmaf CLI")
    ap.add_argument("--runs", required=True)
    ap.add_argument("--clips", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--collections")
    ap.add_argument("--rcpss", help="file holding this processor's RCPSS fingerprint (twinmaf_noiseclip --rcpss)")
    args = ap.parse_args()
    c = Check(args)
    for pair, threads, prealloc in CASES:
        c.golden_case(pair, threads, prealloc)
        c.cli_file(pair, "vmaf_v0.6.1", ["-m", "version:vmaf_v0.6.1:vmaf"])
        c.cli_file(pair, "psnr_mse_apsnr", ["-f", "psnr,enable_mse=true,enable_apsnr=true"])
    if args.collections:
        c.collections()
    print(f"capi: {len(CASES)} pairs, {c.collection_runs} collection runs, {c.values} values ==, "
          f"{c.files} files byte-compared, {len(c.failures)} failures"
          + (f" ({c.vendor_skipped} collection runs' values not compared: no recording for this processor)"
             if c.vendor_skipped else ""))
    if args.collections and not c.collection_runs:
        print("capi: no collection run found", file=sys.stderr)
        return 1
    return 1 if c.failures or not c.values else 0


if __name__ == "__main__":
    sys.exit(main())
