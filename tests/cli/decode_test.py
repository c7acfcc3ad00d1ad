#!/usr/bin/env python3
"""Compressed inputs (the decode stage): one reference against encodes in
H.264/mkv, HEVC/mp4, VP9/webm and AV1/ivf made here with ffmpeg, read by every
decoder at once, scores == the same frames decoded to raw YUV by ffmpeg (every
value of the JSON but the fps), at --threads 0 and 2, with --frame_cnt and a
shorter encode (which ends the run for every encode, with libvmaf's warning); --decode cpu/auto/nvdec give the
same values, --verbose names each input's decoder, --profile times it; several decoders per input
(--decoders, stretches between random-access points: H.264 IDR, HEVC CRA with leading pictures and
IDR, VP9 key frames) give the raw frames' values with frame skips and counts that start and end
mid-stretch; truncated and corrupt streams fail with FFmpeg's error on one line and no output
(--verbose prints FFmpeg's log); a full-range input against a limited-range one is refused with one line and no result
file.

Usage: decode_test.py TWINMAF_BIN CLIPS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

BIN, CLIPS = sys.argv[1], sys.argv[2]
SRC = os.path.join(CLIPS, "synth_576x324_420p8_48f.mkv")
W, H = 576, 324
failures = []
os.environ["SVT_LOG"] = "1"  # SVT-AV1: errors only


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}")


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


def score(*args):
    p = subprocess.run([BIN, *map(str, args), "-q"], capture_output=True, text=True, timeout=300)
    return p


def results(path):
    d = json.load(open(path))
    d.pop("fps", None)
    return d


with tempfile.TemporaryDirectory() as d:
    j = lambda name: os.path.join(d, name)
    ffmpeg("-i", SRC, "-frames:v", 24, "-c:v", "libx264", "-crf", 16, j("ref.mkv"))
    encodes = {
        "hevc.mp4": ["-c:v", "libx265", "-crf", 32, "-x265-params", "log-level=error"],
        "vp9.webm": ["-c:v", "libvpx-vp9", "-b:v", "300k", "-deadline", "realtime", "-cpu-used", 8],
        "av1.ivf": ["-c:v", "libsvtav1", "-crf", 45, "-preset", 12],
        "short.mkv": ["-c:v", "libx264", "-crf", 35, "-frames:v", 17],
    }
    for name, opts in encodes.items():
        ffmpeg("-i", j("ref.mkv"), *opts, j(name))
    for name in ["ref.mkv", *encodes]:
        ffmpeg("-i", j(name), "-f", "rawvideo", "-pix_fmt", "yuv420p", j(name + ".yuv"))
    raw = ["-w", W, "-h", H, "-p", "420", "-b", 8]

    for threads in (0, 2):
        for frame_cnt in ([], ["--frame_cnt", 9]):
            tag = f"threads {threads} {frame_cnt}"
            dis, dis_raw, outs, outs_raw = [], [], [], []
            for k, name in enumerate(encodes):
                dis += ["-d", j(name)]
                dis_raw += ["-d", j(name + ".yuv")]
                outs += ["-o", j(f"c{k}.json")]
                outs_raw += ["-o", j(f"r{k}.json")]
            common = ["--threads", threads, "--json", "--feature", "psnr", *frame_cnt]
            p = score("-r", j("ref.mkv"), *dis, *outs, *common)
            check(f"containers ({tag}): exit", p.returncode == 0, p.stderr)
            q = score("-r", j("ref.mkv.yuv"), *dis_raw, *outs_raw, *common, *raw)
            check(f"raw ({tag}): exit", q.returncode == 0, q.stderr)
            if p.returncode or q.returncode:
                continue
            for k, name in enumerate(encodes):
                a, b = results(j(f"c{k}.json")), results(j(f"r{k}.json"))
                # each encode over its own length: the short one's 17, the others' 24
                want = 9 if frame_cnt else (17 if name == "short.mkv" else 24)
                check(f"{name} ({tag}): frames", len(a["frames"]) == want, len(a["frames"]))
                check(f"{name} ({tag}): == raw", a == b)
            check(f"containers ({tag}): the short encode's warning",
                  ("short.mkv\" ended before" in p.stderr) == (not frame_cnt), p.stderr)

    # --decode: where each input decodes, named by --verbose and timed by
    # --profile; the values never change. nvdec on a machine without a GPU
    # (or with one) either scores the same values or refuses in one line.
    want = results(j("r0.json"))  # threads 2, --frame_cnt 9, ref.mkv against hevc.mp4 as raw
    common = ["-r", j("ref.mkv"), "-d", j("hevc.mp4"), "--feature", "psnr", "--threads", 2, "--frame_cnt", 9, "--json"]
    for mode in ("cpu", "auto", "nvdec"):
        out = j(f"decode_{mode}.json")
        p = subprocess.run([BIN, *map(str, common), "-o", out, "--decode", mode, "--verbose", "--profile"],
                           capture_output=True, text=True, timeout=300)
        lines = [l for l in p.stderr.splitlines() if l.startswith("twinmaf: error")]
        if mode == "nvdec" and p.returncode != 0:
            check("--decode nvdec refused: one line", len(lines) == 1 and "--decode nvdec" in lines[0], p.stderr)
            check("--decode nvdec refused: no result file", not os.path.exists(out))
            continue
        check(f"--decode {mode}: exit", p.returncode == 0, p.stderr)
        if p.returncode:
            continue
        check(f"--decode {mode}: == raw", results(out) == want)
        for name in ("ref.mkv", "hevc.mp4"):
            named = [l for l in p.stderr.splitlines() if l.startswith(f"twinmaf: decode: {j(name)}: ")]
            check(f"--decode {mode}: --verbose names {name}'s decoder", len(named) == 1, p.stderr)
            if mode == "cpu" and named:
                check(f"--decode cpu: {name} on the CPU", ": cpu, " in named[0] and "(--decode cpu)" in named[0],
                      named[0])
            timed = [l for l in p.stderr.splitlines() if l.strip().startswith("decode ") and j(name) in l]
            check(f"--decode {mode}: --profile times {name}", len(timed) == 1 and " fps) " in timed[0], p.stderr)
    p = score("-r", j("ref.mkv"), "-d", j("hevc.mp4"), "--decode", "cpu,auto,cpu")
    check("--decode of 3 inputs for 2: refused", p.returncode != 0 and "--decode lists 3 choices for 2 inputs" in
          p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr)
    p = score("-r", j("ref.mkv"), "-d", j("hevc.mp4"), "--decode", "cpu,auto", "--verbose", "--frame_cnt", 2)
    check("--decode per input", p.returncode == 0 and "ref.mkv: cpu, " in p.stderr, p.stderr)
    p = score("-r", j("ref.mkv"), "-d", j("hevc.mp4"), "--decode", "gpu")
    check("--decode gpu: refused", p.returncode == 2 and "--decode: 'gpu' is not auto, cpu or nvdec" in p.stderr,
          p.stderr)

    # Several decoders per input: 150 frames, a random-access point every 50.
    ffmpeg("-stream_loop", 3, "-i", SRC, "-frames:v", 150, "-vf", "noise=alls=6:allf=t", "-pix_fmt", "yuv420p",
           j("long.y4m"))
    gop = "keyint=50:min-keyint=50:log-level=error"
    stretched = {
        "idr.mkv": ["-c:v", "libx264", "-crf", 30, "-g", 50],
        "cra.mkv": ["-c:v", "libx265", "-crf", 32, "-x265-params", gop],  # open GOPs: CRA, RASL
        "idr10.mp4": ["-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-crf", 32, "-x265-params", gop + ":no-open-gop=1"],
        "key.webm": ["-c:v", "libvpx-vp9", "-b:v", "300k", "-deadline", "realtime", "-cpu-used", 8, "-g", 50],
    }
    for name, opts in stretched.items():
        ffmpeg("-i", j("long.y4m"), *opts, j(name))
        bits = 10 if "10" in name else 8
        ffmpeg("-i", j(name), "-f", "rawvideo", "-pix_fmt", "yuv420p10le" if bits == 10 else "yuv420p", j(name + ".yuv"))
        feats = ["--feature", "psnr=enable_chroma=true", "--feature", "motion", "--json", "--precision", "max"]
        for limits in ([], ["--frame_skip_ref", 60, "--frame_skip_dist", 60, "--frame_cnt", 47],
                       ["--frame_skip_ref", 49, "--frame_skip_dist", 49]):
            out_raw, out = j("s_raw.json"), j("s.json")
            p = score("-r", j(name + ".yuv"), "-d", j(name + ".yuv"), "-w", W, "-h", H, "-p", "420", "-b", bits,
                      *feats, *limits, "-o", out_raw)
            check(f"{name} {limits}: raw run", p.returncode == 0, p.stderr)
            want = results(out_raw)
            for decoders in (1, 3):
                p = score("-r", j(name), "-d", j(name), "--decoders", decoders, "--decode", "cpu", "--verbose",
                          *feats, *limits, "-o", out)
                check(f"{name} {limits} --decoders {decoders}: == raw", p.returncode == 0 and results(out) == want,
                      p.stderr)
                named = [l for l in p.stderr.splitlines() if l.startswith(f"twinmaf: decode: {j(name)}: ")]
                split = f"{decoders} decoders (cpu, " in "".join(named) and " stretches" in "".join(named)
                check(f"{name} --decoders {decoders}: --verbose", len(named) == 2 and split == (decoders > 1), named)
    p = score("-r", j("ref.mkv"), "-d", j("hevc.mp4"), "--decoders", 3, "--decode", "cpu", "--verbose")
    check("--decoders 3 on a stream without points: one decoder, said why", p.returncode == 0 and
          "one decoder: it has no random-access point to split at" in p.stderr, p.stderr)

    # Damaged streams: a truncated file and flipped bytes fail with FFmpeg's
    # error as one line naming the input, no output; --verbose prints FFmpeg's log.
    data = open(j("idr.mkv"), "rb").read()
    open(j("cut.mkv"), "wb").write(data[: len(data) * 2 // 3])
    flipped = bytearray(data)
    for k in range(40):
        flipped[len(data) // 3 + k * 997] ^= 0xFF
    open(j("flipped.mkv"), "wb").write(bytes(flipped))
    for name in ("cut.mkv", "flipped.mkv"):
        for decoders in (1, 3):
            out = j("damaged.json")
            p = score("-r", j("long.y4m"), "-d", j(name), "--decoders", decoders, "--decode", "cpu", "--json", "-o", out)
            lines = p.stderr.strip().splitlines()
            check(f"{name} --decoders {decoders}: one line", p.returncode != 0 and len(lines) == 1 and
                  lines[0].startswith(f"twinmaf: error: {j(name)}: FFmpeg: ") and "damaged stream" in lines[0], p.stderr)
            check(f"{name} --decoders {decoders}: no output", not os.path.exists(out))
    # Every packet scrambled: FFmpeg opens the container but no frame decodes.
    ffmpeg("-i", j("ref.mkv"), "-c:v", "copy", "-bsf:v", "noise=amount=1", j("noise.mkv"))
    out = j("damaged.json")
    p = score("-r", j("ref.mkv"), "-d", j("noise.mkv"), "--json", "-o", out)
    check("no decodable frame: one line", p.returncode != 0 and p.stderr.strip().splitlines() ==
          [f"twinmaf: error: {j('noise.mkv')}: no frame of its h264 stream decodes (a damaged stream)"], p.stderr)
    check("no decodable frame: no output", not os.path.exists(out))
    p = score("-r", j("long.y4m"), "-d", j("cut.mkv"), "--verbose")
    check("--verbose prints FFmpeg's log", "twinmaf: ffmpeg: [matroska,webm] " in p.stderr, p.stderr)

    # Sample ranges: full (yuvj / pc) against limited or unmarked.
    ffmpeg("-i", j("ref.mkv"), "-vf", "scale=out_range=pc", "-pix_fmt", "yuvj420p", "-c:v", "libx264", "-crf", 20,
           j("full.mkv"))
    ffmpeg("-i", j("ref.mkv"), "-vf", "scale=out_range=pc", "-color_range", "pc", "-strict", -1, "-f", "yuv4mpegpipe",
           j("full.y4m"))
    for ref, dis in (("ref.mkv", "full.mkv"), ("full.y4m", "hevc.mp4")):
        out = j("range.json")
        p = score("-r", j(ref), "-d", j(dis), "--json", "-o", out)
        lines = p.stderr.strip().splitlines()
        check(f"range {ref} {dis}: refused", p.returncode != 0 and len(lines) == 1 and "sample ranges do not match"
              in lines[0] and "full (pc)" in lines[0], p.stderr)
        check(f"range {ref} {dis}: no result file", not os.path.exists(out))
    p = score("-r", j("full.y4m"), "-d", j("full.mkv"), "--json", "-o", j("same.json"))
    check("range full against full: scored", p.returncode == 0, p.stderr)

for f in failures:
    print("FAIL", f)
print(f"decode_test: {len(failures)} failures")
sys.exit(1 if failures else 0)
