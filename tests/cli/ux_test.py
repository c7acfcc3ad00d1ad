#!/usr/bin/env python3
"""What twinmaf adds around libvmaf's scores: the progress line (under a
pseudo-terminal), --align on clips shifted by a known offset, --scale against
files scaled by ffmpeg's scale filter, --stats, and the --html report's
contents. Clips are cut from the shipped ones with ffmpeg.

Usage: ux_test.py TWINMAF_BIN CLIPS_DIR"""
import json
import os
import pty
import re
import subprocess
import sys
import tempfile

BIN, CLIPS = sys.argv[1], sys.argv[2]
failures = []
checks = 0


def check(name, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append(f"{name}: {detail}")


def run(*args, ok=True):
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        failures.append(f"{' '.join(map(str, args))}: exit {p.returncode}: {p.stderr.strip()}")
    return p


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


def without_fps(text):
    return re.sub(r'("fps": |fps=")[0-9.]+', r"\1X", text)


def read(path):
    with open(path) as f:
        return f.read()


def y4m_frames(path):
    """(header line, [frame payloads]) of a Y4M file with bare FRAME lines."""
    data = open(path, "rb").read()
    nl = data.index(b"\n") + 1
    parts = data[nl:].split(b"FRAME\n")
    assert parts[0] == b""
    return data[:nl], parts[1:]


def write_y4m(path, header, frames):
    with open(path, "wb") as f:
        f.write(header + b"".join(b"FRAME\n" + fr for fr in frames))


def json_without(path, *keys):
    d = json.load(open(path))
    for k in ("fps", *keys):
        d.pop(k, None)
    return d


with tempfile.TemporaryDirectory() as d:
    j = lambda name: os.path.join(d, name)
    ffmpeg("-i", os.path.join(CLIPS, "kleiber_576x324_420p8_48f__x264crf18.mkv"), "-f", "yuv4mpegpipe", j("ref.y4m"))
    ffmpeg("-i", os.path.join(CLIPS, "kleiber_576x324_420p8_48f__x264crf38.mkv"), "-f", "yuv4mpegpipe", j("dis.y4m"))
    header, frames = y4m_frames(j("dis.y4m"))
    n = len(frames)
    check("clip", n == 48, f"{n} frames")
    write_y4m(j("late3.y4m"), header, frames[3:])                   # lost its first 3 frames
    write_y4m(j("early2.y4m"), header, frames[:1] * 2 + frames)      # 2 extra leading frames
    base = ["-r", j("ref.y4m"), "--threads", "2"]

    # --- progress -------------------------------------------------------
    def pty_run(args):
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(BIN, [BIN, *map(str, args)])
        out = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status), out.decode()

    rc, out = pty_run([*base, "-d", j("dis.y4m"), "--json", "-o", j("p.json")])
    lines = re.findall(r"\rtwinmaf: (\d+)/48 frames \((\d+)%\), [0-9.]+ fps(?:, ETA \d+:\d\d)?\x1b\[K", out)
    check("tty progress: exit", rc == 0, out)
    check("tty progress: redrawn line", len(lines) >= 1 and int(lines[0][0]) >= 1, repr(out))
    check("tty progress: frame counts increase", [int(a) for a, _ in lines] == sorted(int(a) for a, _ in lines),
          repr(out))
    check("tty progress: erased before the summary", re.search(r"\r\x1b\[Kvmaf_v0\.6\.1: [0-9.]+\r\n", out) is not None,
          repr(out))
    check("tty progress: not in the result file", "ETA" not in read(j("p.json")) and "frames (" not in read(j("p.json")))
    rc, out = pty_run([*base, "-d", j("dis.y4m"), "-q"])
    check("tty -q: no progress", rc == 0 and "frames (" not in out, repr(out))
    p = run(*base, "-d", j("dis.y4m"))
    check("no tty: no progress", "frames (" not in p.stderr and p.stderr.endswith("fps\n"), p.stderr)
    p = run(*base, "-d", j("dis.y4m"), "--progress", "-q")
    plain = p.stderr.splitlines()
    check("--progress: plain lines ending at 48/48", plain and re.fullmatch(
        r"twinmaf: 48/48 frames \(100%\), [0-9.]+ fps", plain[-1]) is not None and "\r" not in p.stderr, p.stderr)
    raw_ref = j("ref.yuv")
    ffmpeg("-i", j("ref.y4m"), "-f", "rawvideo", raw_ref)
    p = run("-r", raw_ref, "-d", raw_ref, "-w", 576, "-h", 324, "-p", 420, "-b", 8, "--progress", "-q",
            "--frame_skip_ref", 5, "--frame_cnt", 40, "-n", "--feature", "psnr")
    check("--progress: total after skips and frame_cnt", "40/40 frames" in p.stderr, p.stderr)

    # --- align ----------------------------------------------------------
    for name, dis, offset, skip_flag in [("lost 3 leading frames", "late3.y4m", 3, "--frame_skip_ref"),
                                         ("2 extra leading frames", "early2.y4m", -2, "--frame_skip_dist"),
                                         ("aligned", "dis.y4m", 0, None)]:
        p = run(*base, "-d", j(dis), "--align", "--json", "-o", j("a.json"))
        want = f"offset {offset:+d}"
        check(f"align {name}: reports {want}", f"twinmaf: align: {j(dis)}: {want} " in p.stderr, p.stderr)
        meta = json.load(open(j("a.json"))).get("alignment")
        check(f"align {name}: JSON alignment", meta is not None and meta["offset"] == offset, str(meta))
        skip = [skip_flag, abs(offset)] if skip_flag else []
        run(*base, "-d", j(dis), *skip, "--json", "-o", j("s.json"))
        check(f"align {name}: scores == {skip_flag or 'no skip'}",
              json_without(j("a.json"), "alignment") == json_without(j("s.json")))
    # One reference, several encodes: each input its own offset.
    p = run(*base, "-d", j("late3.y4m"), "-d", j("early2.y4m"), "--align=5", "--json", "-o", j("m1.json"), "-o",
            j("m2.json"))
    check("align two inputs: offsets", "late3.y4m: offset +3" in p.stderr and "early2.y4m: offset -2" in p.stderr,
          p.stderr)
    run(*base, "-d", j("late3.y4m"), "--frame_skip_ref", 3, "--frame_cnt", 45, "--json", "-o", j("s1.json"))
    run(*base, "-d", j("early2.y4m"), "--frame_skip_ref", 3, "--frame_skip_dist", 5, "--frame_cnt", 45, "--json", "-o",
        j("s2.json"))
    check("align two inputs: first", json_without(j("m1.json"), "alignment") == json_without(j("s1.json")))
    check("align two inputs: second", json_without(j("m2.json"), "alignment") == json_without(j("s2.json")))
    p = run(*base, "-d", j("late3.y4m"), "--align=2", ok=False)
    check("align beyond the range: not found", "offset +3" not in p.stderr, p.stderr)
    p = run("-r", "-", "-d", j("dis.y4m"), "--align", ok=False)
    check("align on a stream: error", p.returncode == 2 and "not a stream" in p.stderr, p.stderr)
    p = run(*base, "-d", j("dis.y4m"), "--align=0", ok=False)
    check("--align=0: error", p.returncode == 2 and "--align" in p.stderr, p.stderr)
    run(*base, "-d", j("dis.y4m"), "--xml", "-o", j("plain.xml"))
    run(*base, "-d", j("dis.y4m"), "--json", "-o", j("plain.json"))
    check("default JSON has no twinmaf keys", set(json.load(open(j("plain.json")))) ==
          {"version", "fps", "frames", "pooled_metrics", "aggregate_metrics"})

    # --- scale ----------------------------------------------------------
    ffmpeg("-i", j("dis.y4m"), "-frames:v", 6, "-vf", "scale=290:164:flags=lanczos", "-f", "yuv4mpegpipe", j("small.y4m"))
    p = run(*base, "-d", j("small.y4m"), ok=False)
    check("sizes differ: error names --scale", p.returncode == 2 and "dimensions do not match" in p.stderr and
          "--scale" in p.stderr, p.stderr)
    for pix, scaler in [("yuv420p", None), ("yuv420p10le", "bicubic"), ("yuv444p", "lanczos"), ("yuv422p12le", "area")]:
        r, s, u = j(f"r_{pix}.y4m"), j(f"s_{pix}.y4m"), j(f"u_{pix}.y4m")
        ffmpeg("-i", j("ref.y4m"), "-frames:v", 6, "-pix_fmt", pix, "-strict", -1, "-f", "yuv4mpegpipe", r)
        ffmpeg("-i", j("small.y4m"), "-pix_fmt", pix, "-strict", -1, "-f", "yuv4mpegpipe", s)
        # ffmpeg's command line scales bicubic unless told otherwise.
        flags = f":flags={scaler}" if scaler else ""
        ffmpeg("-i", s, "-vf", f"scale=576:324{flags}", "-strict", -1, "-f", "yuv4mpegpipe", u)
        opts = ["--scaler", scaler] if scaler else []
        args = ["--feature", "psnr", "--precision", "max", "--csv", "-o"]
        p = run("-r", r, "-d", s, "--scale", *opts, *args, j("scaled.csv"))
        check(f"scale {pix} {scaler}: reported", f"290x164 -> 576x324 ({scaler or 'bicubic'})" in p.stderr, p.stderr)
        run("-r", r, "-d", u, *args, j("prescaled.csv"))
        check(f"scale {pix} {scaler}: == ffmpeg scale filter", read(j("scaled.csv")) == read(j("prescaled.csv")))
    # Both inputs to the model's resolution (vmaf_v0.6.1: 1920x1080).
    ffmpeg("-i", j("ref.y4m"), "-frames:v", 2, "-f", "yuv4mpegpipe", j("r2.y4m"))
    ffmpeg("-i", j("small.y4m"), "-frames:v", 2, "-f", "yuv4mpegpipe", j("s2.y4m"))
    ffmpeg("-i", j("r2.y4m"), "-vf", "scale=1920:1080", "-f", "yuv4mpegpipe", j("r2u.y4m"))
    ffmpeg("-i", j("s2.y4m"), "-vf", "scale=1920:1080", "-f", "yuv4mpegpipe", j("s2u.y4m"))
    run("-r", j("r2.y4m"), "-d", j("s2.y4m"), "--scale=model", "--csv", "-o", j("model.csv"))
    run("-r", j("r2u.y4m"), "-d", j("s2u.y4m"), "--csv", "-o", j("model_pre.csv"))
    check("scale=model == both scaled to 1920x1080", read(j("model.csv")) == read(j("model_pre.csv")))
    for bad, needle in [(["--scale", "12x"], "invalid scaling '12x'"), (["--scale", "--scaler", "cubic"],
                        "unknown scaler 'cubic'"), (["--scaler", "area"], "--scaler needs --scale"),
                        (["--scale=model", "-m", "path=/nonexistent.json"], "nonexistent")]:
        p = run(*base, "-d", j("small.y4m"), *bad, ok=False)
        check(f"scale error {bad}", p.returncode == 2 and needle in p.stderr and len(p.stderr.splitlines()) == 1,
              p.stderr)

    # --- stats ----------------------------------------------------------
    p = run(*base, "-d", j("dis.y4m"), "--stats", "--json", "-o", j("st.json"))
    res = json.load(open(j("st.json")))
    vmaf = [f["metrics"]["vmaf"] for f in res["frames"]]
    st = res.get("statistics", {}).get("vmaf")
    srt = sorted(vmaf)
    check("stats: p50 is the median", st is not None and abs(st["p50"] - (srt[23] + srt[24]) / 2) < 1e-5, str(st))
    check("stats: worst frames are the lowest", st is not None and [w[0] for w in st["worst"]] ==
          sorted(range(n), key=lambda i: (vmaf[i], i))[:10], str(st))
    check("stats: pooled values unchanged", json_without(j("st.json"), "statistics") == json_without(j("plain.json")))
    check("stats: printed", re.search(r"^vmaf: mean [0-9.]+, stddev [0-9.]+, p1 [0-9.]+, p5 [0-9.]+, p50 [0-9.]+, "
                                      r"worst frames \d+ \(", p.stdout, re.M) is not None, p.stdout)

    # --- html -----------------------------------------------------------
    p = run(*base, "-d", j("dis.y4m"), "-d", j("late3.y4m"), "--align", "--feature", "psnr", "--html", j("r.html"))
    html = read(j("r.html")) if os.path.exists(j("r.html")) else ""
    check("html: written", html.startswith("<!DOCTYPE html>"), p.stderr)
    check("html: self-contained", re.search(r"<(script|link|img)[^>]+(src|href)=", html) is None)
    check("html: command line", "--html" in html and "late3.y4m" in html)
    check("html: versions", "plotly.js 2" in html and "f85a8536" in html)
    data = re.search(r'<script type="application/json" id="twinmaf-data">(.*?)</script>', html, re.S)
    payload = json.loads(data.group(1)) if data else {}
    names = [m["name"] for m in payload.get("metrics", [])]
    check("html: a plot per metric, vmaf first", names[:1] == ["vmaf"] and "psnr_y" in names, str(names))
    check("html: both inputs overlaid", all(len(m["series"]) == 2 for m in payload.get("metrics", [])))
    check("html: plot divs", all(f'id="plot-{k}"' in html for k in range(len(names))))
    check("html: worst frames table", '<table class="worst"' in html)
    p = run(*base, "-d", j("dis.y4m"), "--html", j("nodir/r.html"), ok=False)
    check("html: bad path refused before scoring", p.returncode == 2 and "--html" in p.stderr, p.stderr)

print(f"{checks} checks, {len(failures)} failures")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
