#!/usr/bin/env python3
"""CLI behaviour: bad input and bad flags give one line "twinmaf: error: ..."
naming the culprit and exit 2 (never a crash or a silent score); threading
never changes the output; odd and tiny sizes score without crashing.

Usage: cli_test.py TWINMAF_BIN   (TWINMAF_SANITIZED=1 for an ASan build)"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
SANITIZED = os.environ.get("TWINMAF_SANITIZED") == "1"
failures = []
checks = 0


def run(*args):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=120)


def expect_error(name, args, needle, code=2, stdin=None, limit_memory=False):
    global checks
    checks += 1
    args = list(map(str, args))
    outs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")]
    for o in outs:
        if os.path.isfile(o):
            os.remove(o)
    # Allocations bounded (1 GiB) where an input could make us allocate: by the
    # address space, or under ASan (which reserves terabytes of shadow) by its
    # allocator, which aborts on a larger request.
    limit, env = None, None
    if limit_memory and SANITIZED:
        env = dict(os.environ, ASAN_OPTIONS="max_allocation_size_mb=1024:allocator_may_return_null=0")
    elif limit_memory:
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, stdin=stdin,
                       preexec_fn=limit, env=env)
    lines = p.stderr.strip().splitlines()
    if any(os.path.isfile(o) for o in outs):
        failures.append(f"{name}: wrote an output file")
    if p.returncode != code:
        failures.append(f"{name}: exit {p.returncode} (want {code}); stderr={p.stderr!r}")
    elif len(lines) != 1 or not lines[0].startswith("twinmaf: error: "):
        failures.append(f"{name}: not one error line: {p.stderr!r}")
    elif needle not in lines[0]:
        failures.append(f"{name}: {lines[0]!r} does not mention {needle!r}")


def expect_ok(name, args):
    global checks
    checks += 1
    p = run(*args)
    if p.returncode != 0:
        failures.append(f"{name}: exit {p.returncode}: {p.stderr.strip()}")
    return p


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def noise(n, seed):
    x = seed
    out = bytearray()
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        out.append(x >> 56)
    return bytes(out)


def y4m(w, h, cs, frames, frame_bytes, seed=1, header_extra=""):
    head = f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C{cs}{header_extra}\n".encode()
    return head + b"".join(b"FRAME\n" + noise(frame_bytes, seed + i) for i in range(frames))


with tempfile.TemporaryDirectory() as d:
    j = lambda name: os.path.join(d, name)
    w, h = 32, 18
    fb = w * h * 3 // 2
    ref = write(j("ref.yuv"), noise(fb * 3, 1))
    dis = write(j("dis.yuv"), noise(fb * 3, 2))
    raw = ["-w", w, "-h", h, "-p", "420", "-b", 8]
    ok = ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr"]

    # inputs
    write(j("trunc.yuv"), noise(fb * 2 + 100, 3))
    expect_error("truncated raw frame", ["-r", ref, "-d", j("trunc.yuv"), *raw, "-n", "--feature", "psnr"],
                 "frame 2 is truncated")
    write(j("empty.yuv"), b"")
    expect_error("empty file", ["-r", ref, "-d", j("empty.yuv"), *raw, "-n", "--feature", "psnr"], "empty")
    expect_error("missing file", ["-r", ref, "-d", j("nope.yuv"), *raw, "-n", "--feature", "psnr"], "nope.yuv")
    write(j("a.y4m"), y4m(w, h, "420", 2, fb))
    write(j("b.y4m"), y4m(w + 2, h, "420", 2, (w + 2) * h * 3 // 2))
    expect_error("size mismatch", ["-r", j("a.y4m"), "-d", j("b.y4m"), "-n", "--feature", "psnr"],
                 "dimensions do not match")
    write(j("c444.y4m"), y4m(w, h, "444", 2, w * h * 3))
    expect_error("format mismatch", ["-r", j("a.y4m"), "-d", j("c444.y4m"), "-n", "--feature", "psnr"],
                 "pixel formats do not match")
    write(j("p10.y4m"), y4m(w, h, "420p10", 2, fb * 2, seed=9))
    expect_error("depth mismatch (or range)", ["-r", j("a.y4m"), "-d", j("p10.y4m"), "-n", "--feature", "psnr"],
                 "p10.y4m")
    write(j("unknown.y4m"), y4m(w, h, "420", 1, fb, header_extra=" Z7"))
    expect_error("unknown y4m field", ["-r", j("unknown.y4m"), "-d", j("a.y4m"), "-n", "--feature", "psnr"],
                 "unknown Y4M header field 'Z7'")
    write(j("now.y4m"), b"YUV4MPEG2 H18 F25:1\nFRAME\n" + noise(fb, 4))
    expect_error("missing y4m width", ["-r", j("now.y4m"), "-d", j("a.y4m"), "-n", "--feature", "psnr"],
                 "lacks the width")
    write(j("c411.y4m"), y4m(w, h, "411", 1, fb))
    expect_error("unsupported colour space", ["-r", j("c411.y4m"), "-d", j("a.y4m"), "-n", "--feature", "psnr"],
                 "colour space '411'")
    write(j("garbage.y4m"), b"not a y4m file at all\n")
    expect_error("not y4m", ["-r", j("garbage.y4m"), "-d", j("a.y4m"), "-n", "--feature", "psnr"], "not a Y4M")
    write(j("cut.y4m"), y4m(w, h, "420", 2, fb)[:-10])
    expect_error("truncated y4m", ["-r", j("a.y4m"), "-d", j("cut.y4m"), "-n", "--feature", "psnr"],
                 "frame 1 is truncated")
    big = bytearray(noise(w * h * 3 * 2, 5))
    big[1] = 0xff  # sample 0xff?? > 1023 in a 10-bit file
    write(j("range.yuv"), bytes(big))
    expect_error("sample above bit depth", ["-r", j("range.yuv"), "-d", j("range.yuv"), "-w", w, "-h", h,
                                            "-p", "420", "-b", 10, "-n", "--feature", "psnr"], "exceeds 10 bits")

    # numbers: one checked parser, no wrap-around, no sign, bounded
    for flag, value in (("--threads", "2147483647"), ("--threads", "4194304"), ("--threads", "-1"),
                        ("--threads", "4294967295"), ("--subsample", "-1"), ("--frame_cnt", "-5"),
                        ("--frame_skip_dist", "-1"), ("--frame_skip_ref", "1e3"), ("--gpu", "0x1")):
        expect_error(f"{flag} {value}", [*ok, flag, value, "-o", j("n.json")], f"'{value}' for {flag}")
    for flag, value in (("-w", "4294967872"), ("-w", "2147483648"), ("-w", "0"), ("-h", "-324"), ("-b", "4294967304")):
        args = {"-w": w, "-h": h, "-p": "420", "-b": 8}
        args[flag] = value
        expect_error(f"{flag} {value}", ["-r", ref, "-d", dis, *sum(([k, v] for k, v in args.items()), []), "-n",
                                         "--feature", "psnr", "-o", j("n.json")], f"'{value}' for {flag}")
    p = expect_ok("--cpumask -1 (libvmaf's idiom)", [*ok, "--cpumask", "-1"])
    # Every SIMD target gives the scalar references' bits (docs/simd.md).
    masked = {}
    mw, mh = 72, 40  # vmaf_v0.6.1 needs 33x33 (adm)
    mref = write(j("mref.yuv"), noise(mw * mh * 3, 11))  # two 4:2:0 frames
    mdis = write(j("mdis.yuv"), noise(mw * mh * 3, 12))
    for mask in ("-1", "0", "16", "24"):
        expect_ok(f"--cpumask {mask}", ["-r", mref, "-d", mdis, "-w", mw, "-h", mh, "-p", "420", "-b", 8, "-m",
                                        "version=vmaf_v0.6.1", "--feature", "psnr", "--json", "--precision", "max",
                                        "-o", j(f"mask{mask}.json"), "--cpumask", mask, "-q"])
        with open(j(f"mask{mask}.json")) as f:
            masked[mask] = [ln for ln in f if '"fps"' not in ln]
    checks += 1
    if any(v != masked["-1"] for v in masked.values()) or len(masked["-1"]) < 20:
        failures.append("--cpumask changed the scores (or wrote too little)")
    expect_error("--cpumask -2", [*ok, "--cpumask", "-2"], "'-2' for --cpumask")
    p = expect_ok("more threads than cores, quiet", [*ok, "--threads", "64", "-q"])
    checks += 1
    if p.stderr:
        failures.append(f"--threads 64 -q printed on stderr: {p.stderr!r}")

    # pipes and standard input give the files' scores
    write(j("pa.y4m"), y4m(w, h, "420", 3, fb, seed=41))
    write(j("pb.y4m"), y4m(w, h, "420", 3, fb, seed=42))
    files = expect_ok("y4m files", ["-r", j("pa.y4m"), "-d", j("pb.y4m"), "-n", "--feature", "psnr", "--json", "-o",
                                    j("pf.json"), "--precision", "max"])
    with open(j("pa.y4m"), "rb") as f:
        piped = subprocess.run([BIN, "-r", "-", "-d", j("pb.y4m"), "-n", "--feature", "psnr", "--json", "-o",
                                j("pp.json"), "--precision", "max"], stdin=f, capture_output=True, text=True)
    os.mkfifo(j("fifo.y4m"))
    feeder = subprocess.Popen(["sh", "-c", f"cat {j('pb.y4m')} > {j('fifo.y4m')}"])
    fifo = expect_ok("fifo", ["-r", j("pa.y4m"), "-d", j("fifo.y4m"), "-n", "--feature", "psnr", "--json", "-o",
                              j("pq.json"), "--precision", "max"])
    feeder.wait()
    strip_fps = lambda t: re.sub(r'"fps": [^,]*,', "", t)
    checks += 2
    if piped.returncode != 0 or strip_fps(open(j("pp.json")).read()) != strip_fps(open(j("pf.json")).read()):
        failures.append(f"stdin y4m: exit {piped.returncode} {piped.stderr.strip()} or scores differ")
    if strip_fps(open(j("pq.json")).read()) != strip_fps(open(j("pf.json")).read()):
        failures.append("fifo y4m: scores differ")
    with open(ref, "rb") as f:
        expect_error("raw stdin without size flags", ["-r", "-", "-d", dis, "-n", "--feature", "psnr"],
                     "needs -w/--width", stdin=f)
    if subprocess.run(["sh", "-c", "command -v ffmpeg"], capture_output=True).returncode == 0:
        ffmpeg_mkv = j("piped.mkv")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-s", f"{w}x{h}", "-pix_fmt",
                        "yuv420p", "-i", ref, "-c:v", "ffv1", ffmpeg_mkv], check=True)
        with open(ffmpeg_mkv, "rb") as f:
            expect_error("an mkv on standard input", ["-r", "-", "-d", dis, "-n", "--feature", "psnr"],
                         "is read from a file, not a stream", stdin=f)
    expect_error("/dev/zero without size flags", ["-r", "/dev/zero", "-d", dis, "-n", "--feature", "psnr"],
                 "needs -w/--width")
    expect_error("raw .yuv without size flags", ["-r", ref, "-d", dis, "-n", "--feature", "psnr"], "needs -w/--width")

    # sizes are checked against the file before anything is allocated (1 GiB address space)
    write(j("huge.y4m"), b"YUV4MPEG2 W32768 H32768 F25:1 C444p16\nFRAME\n" + noise(16, 3))
    expect_error("huge y4m header, tiny file", ["-r", j("huge.y4m"), "-d", j("huge.y4m"), "-n", "--feature", "psnr"],
                 "less than the header and one 32768x32768", limit_memory=True)
    write(j("small.yuv"), noise(60, 3))
    expect_error("huge raw size, tiny file", ["-r", j("small.yuv"), "-d", j("small.yuv"), "-w", 32768, "-h", 32768,
                                              "-p", "444", "-b", 16, "-n", "--feature", "psnr"],
                 "less than one 32768x32768", limit_memory=True)
    write(j("inter.y4m"), y4m(w, h, "420", 1, fb, header_extra=" It"))
    expect_error("interlaced y4m", ["-r", j("inter.y4m"), "-d", j("inter.y4m"), "-n", "--feature", "psnr"],
                 "interlaced Y4M ('It')")
    expect_error("nothing to score", ["-r", ref, "-d", j("empty_dis.yuv") if os.path.exists(j("empty_dis.yuv")) else
                                      write(j("empty_dis.yuv"), b""), *raw, "-n", "--feature", "psnr", "-o",
                                      j("n.json")], "empty")
    expect_error("distorted list that is not a list", ["-r", ref, "--distorted_list", "/dev/zero", *raw, "-n"],
                 "not a list of paths")
    expect_error("output in a missing directory", [*ok, "-o", j("nodir/out.json")], "no directory")
    os.mkdir(j("adir"))
    expect_error("output is a directory", [*ok, "-o", j("adir")], "is a directory")
    # outputs that would overwrite each other or an input, two inputs on stdin: refused before scoring
    expect_error("-o twice", [*ok, "-o", j("twice.json"), "-o", j(".") + "/twice.json", "-d", dis],
                 "are the same file")
    expect_error("--html and -o", [*ok, "-o", j("both.json"), "--html", j("both.json")], "are the same file")
    with open(ref, "rb") as f:
        expect_error("-r - -d -", ["-r", "-", "-d", "-", *raw, "-n", "--feature", "psnr"],
                     "both read standard input", stdin=f)
    victim = write(j("victim.yuv"), open(dis, "rb").read())
    os.symlink(victim, j("victim_link.yuv"))
    for out in (victim, j("victim_link.yuv")):
        p = run("-r", ref, "-d", victim, *raw, "-n", "--feature", "psnr", "-o", out)
        checks += 1
        if (p.returncode != 2 or len(p.stderr.splitlines()) != 1 or "would overwrite the input" not in p.stderr
                or open(victim, "rb").read() != open(dis, "rb").read()):
            failures.append(f"-o {out} naming the input: exit {p.returncode}, {p.stderr!r}, or the input changed")
    expect_ok("outputs to /dev/null", [*ok, "-d", dis, "-o", "/dev/null", "-o", "/dev/null"])
    # a run that fails writing one output leaves none of them (each is written beside its path, then renamed)
    expect_error("a full device among the outputs", [*ok, "-o", j("first.json"), "-d", dis, "-o", "/dev/full"],
                 "/dev/full: write failed: No space left on device")
    expect_error("--html on a full device", [*ok, "-o", j("first.json"), "--html", "/dev/full"],
                 "/dev/full: write failed: No space left on device")
    checks += 1
    if [f for f in os.listdir(d) if ".twinmaf-" in f]:
        failures.append(f"temporary output files left: {os.listdir(d)}")

    # --stats says how many frames it leaves out (psnr_hvs of an unchanged frame is inf)
    a, b = noise(fb, 5), noise(fb, 6)
    same, mixed = write(j("same_ref.yuv"), a * 3), write(j("same_dis.yuv"), b + a + b)
    p = expect_ok("stats with an infinite frame", ["-r", same, "-d", mixed, *raw, "-n", "--feature", "psnr_hvs",
                                                   "--stats", "-q", "--json", "-o", j("inf.json")])
    checks += 1
    st = json.load(open(j("inf.json")))["statistics"]["psnr_hvs"]
    if (not re.search(r"^psnr_hvs: mean [0-9.]+, .*, 1 of 3 frames not finite \(left out\)$", p.stdout, re.M)
            or (st["frames"], st["non_finite"]) != (2, 1)):
        failures.append(f"--stats does not say it left a frame out: {p.stdout!r} {st}")
    expect_error("model path is a directory", ["-r", ref, "-d", dis, *raw, "--model", "path=" + j("adir")],
                 "is a directory")
    expect_error("model path is a device", ["-r", ref, "-d", dis, *raw, "--model", "path=/dev/zero"],
                 "model files above", limit_memory=True)
    if not SANITIZED:  # (ASan bounds single allocations, not the sum)
        write(j("wide.json"), b'{"a": [' + b"0," * (15 << 20) + b"0]}")
        expect_error("model larger in memory than the memory", ["-r", ref, "-d", dis, *raw, "--model",
                                                                 "path=" + j("wide.json")],
                     "JSON: out of memory", code=1, limit_memory=True)
    expect_error("a feature's backend twice", [*ok, "--backend", "auto,psnr=cpu,psnr=cuda"], "'psnr' is given twice")
    expect_error("model overload for an unused extractor",
                 ["-r", ref, "-d", dis, *raw, "--model", "version=vmaf_v0.6.1:psnr.enable_chroma=false"],
                 "names an extractor the model does not use")

    # flags and options
    expect_error("unknown flag", [*ok, "--bogus"], "--bogus")
    expect_error("unknown feature", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "nosuch"], "unknown feature 'nosuch'")
    expect_error("bad option value", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr=min_sse=abc"],
                 "option min_sse: 'abc' is not a number")
    expect_error("out of range", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr=min_sse=-1"],
                 "option min_sse: -1 is outside")
    expect_error("bad bool", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr=enable_mse=yes"],
                 "option enable_mse: 'yes' is not true or false")
    expect_error("unknown option", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr=foo=1"], "unknown option 'foo'")
    expect_error("bad option string", ["-r", ref, "-d", dis, *raw, "-n", "--feature", "psnr=enable_mse"],
                 "bad option string 'enable_mse'")
    expect_error("missing reference", ["-d", dis, *raw, "-n", "--feature", "psnr"], "-r/--reference")
    expect_error("partial raw flags", ["-r", ref, "-d", dis, "-w", w, "-n", "--feature", "psnr"], "raw input needs")
    expect_error("bad pixel format", ["-r", ref, "-d", dis, "-w", w, "-h", h, "-p", "411", "-b", 8, "-n"],
                 "-p/--pixel_format")
    expect_error("bad bit depth", ["-r", ref, "-d", dis, "-w", w, "-h", h, "-p", "420", "-b", 7, "-n"],
                 "-b/--bitdepth")
    expect_error("bad threads", [*ok, "--threads", "two"], "--threads")
    expect_error("bad precision", [*ok, "--precision", "18"], "--precision")
    expect_error("bad aom_ctc", [*ok, "--aom_ctc", "v9.0"], "--aom_ctc")
    expect_error("bad backend", [*ok, "--backend", "gpu"], "'gpu' is not cpu, cuda or auto")
    expect_error("backend for an unknown feature", [*ok, "--backend", "auto,nosuch=cpu"], "unknown feature 'nosuch'")
    expect_error("backend for a feature not computed", [*ok, "--backend", "auto,vif=cpu"],
                 "no feature 'vif' is computed")

    # per-feature backends never change the files
    outs = {}
    for b in ("cpu", "auto", "auto,psnr=cpu", "cpu,psnr=auto"):
        o = j("b.json")
        expect_ok(f"backend {b}", [*ok, "--feature", "motion", "--backend", b, "--json", "-o", o, "--precision", "max"])
        # fps differs run to run; a GPU run adds its "backends" record.
        outs[b] = re.sub(r'  "backends": \{[^}]*\},\n', "", re.sub(r'"fps": [^,]*,', "", open(o).read()))
    checks += 1
    if len(set(outs.values())) != 1:
        failures.append("per-feature backends: outputs differ")

    # models
    expect_error("v1.0.16 below cambi's size", ["-r", ref, "-d", dis, *raw, "--model", "version=vmaf_v1.0.16_3d0h"],
                 "cambi: needs a width or height of at least 216")
    expect_error("unknown model version", ["-r", ref, "-d", dis, *raw, "--model", "version=vmaf_v9"], "vmaf_v9")
    write(j("bad_model.json"), b'{"model_dict": {"model_type": "LIBSVMNUSVR"')
    expect_error("truncated model file", ["-r", ref, "-d", dis, *raw, "--model", "path=" + j("bad_model.json")],
                 "bad_model.json")
    write(j("nan_model.json"), b'{"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none", "slopes": [NaN]}}')
    expect_error("non-JSON number in a model", ["-r", ref, "-d", dis, *raw, "--model", "path=" + j("nan_model.json")],
                 "nan_model.json")
    expect_error("duplicate model names", ["-r", ref, "-d", dis, *raw, "--model", "version=vmaf_v0.6.1",
                                           "--model", "version=vmaf_v0.6.1neg"], "unique name")
    big_ref = write(j("big_ref.yuv"), noise(64 * 48 * 3 // 2 * 2, 21))
    big_dis = write(j("big_dis.yuv"), noise(64 * 48 * 3 // 2 * 2, 22))
    p = expect_ok("default model", ["-r", big_ref, "-d", big_dis, "-w", 64, "-h", 48, "-p", "420", "-b", 8,
                                    "--threads", 2])
    if not p.stdout.startswith("vmaf_v0.6.1: "):
        failures.append(f"default model summary: {p.stdout!r}")

    # Y4M forms libvmaf cannot read directly: mono, 16-bit, 8-bit 4:2:2
    for cs, n in (("mono", w * h), ("mono16", w * h * 2), ("422", w * h * 2), ("444p16", w * h * 6)):
        write(j(f"{cs}_a.y4m"), y4m(w, h, cs, 2, n, seed=11))
        write(j(f"{cs}_b.y4m"), y4m(w, h, cs, 2, n, seed=12))
        p = expect_ok(f"y4m {cs}", ["-r", j(f"{cs}_a.y4m"), "-d", j(f"{cs}_b.y4m"), "-n", "--feature", "psnr",
                                    "--json", "-o", j("y.json")])
        if p.returncode == 0 and len(json.load(open(j("y.json")))["frames"]) != 2:
            failures.append(f"y4m {cs}: frame count")

    # threading never changes the files
    outs = {}
    for t in (0, 1, 2, 3):
        o = j(f"t{t}.json")
        expect_ok(f"threads {t}", [*ok, "--feature", "motion", "--threads", t, "--json", "-o", o, "--precision", "max"])
        outs[t] = open(o).read()
    strip = lambda s: "\n".join(l for l in s.splitlines() if '"fps"' not in l)
    if len({strip(v) for v in outs.values()}) != 1:
        failures.append("threads 0/1/2/3 outputs differ")
    checks += 1

    # one reference, several encodes: each output equals its own single run
    dis2 = write(j("dis2.yuv"), noise(fb * 3, 31))
    dis3 = write(j("dis3.yuv"), noise(fb * 3, 32))
    feats = ["--feature", "psnr=enable_apsnr=true", "--feature", "motion", "--feature", "psnr_hvs"]
    expect_ok("three encodes", ["-r", ref, "-d", dis, "-d", dis2, "-d", dis3, *raw, "-n", *feats, "--json",
                                "-o", j("m1.json"), "-o", j("m2.json"), "-o", j("m3.json"), "--precision", "max"])
    write(j("list.txt"), f"{dis} {j('l1.json')}\n# comment\n{dis2} {j('l2.json')}\n{dis3} {j('l3.json')}\n".encode())
    expect_ok("distorted list", ["-r", ref, "--distorted_list", j("list.txt"), *raw, "-n", *feats, "--json",
                                 "--precision", "max"])
    # paths with blanks are quoted; what cannot be a list says so
    spaced = write(j("my encode.yuv"), open(dis2, "rb").read())
    write(j("spaced.txt"), f'"{spaced}" "{j("q 2.json")}"\n  # indented comment\n'.encode())
    expect_ok("distorted list, quoted path", ["-r", ref, "--distorted_list", j("spaced.txt"), *raw, "-n", *feats,
                                              "--json", "--precision", "max"])
    write(j("unquoted.txt"), f"{spaced} {j('u.json')}\n".encode())
    expect_error("distorted list, unquoted blanks", ["-r", ref, "--distorted_list", j("unquoted.txt"), *raw, "-n"],
                 "line 1: not PATH [OUTPUT] (quote a path with blanks")
    write(j("open_quote.txt"), f'{dis}\n"{dis2}\n'.encode())
    expect_error("distorted list, open quote", ["-r", ref, "--distorted_list", j("open_quote.txt"), *raw, "-n"],
                 "line 2: a quote is not closed")
    write(j("comments.txt"), b"# nothing\n\n")
    expect_error("distorted list, no input", ["-r", ref, "--distorted_list", j("comments.txt"), *raw, "-n"],
                 "lists no input")
    expect_error("distorted list, a directory", ["-r", ref, "--distorted_list", d, *raw, "-n"], "is a directory")
    for k, encode in enumerate((dis, dis2, dis3), 1):
        expect_ok(f"single encode {k}", ["-r", ref, "-d", encode, *raw, "-n", *feats, "--json", "-o", j(f"s{k}.json"),
                                         "--precision", "max"])
        single = strip(open(j(f"s{k}.json")).read())
        checks += 1
        if (strip(open(j(f"m{k}.json")).read()) != single or strip(open(j(f"l{k}.json")).read()) != single
                or (k == 2 and strip(open(j("q 2.json")).read()) != single)):
            failures.append(f"encode {k}: several-encode output differs from its single run")
    # encodes of different lengths: each is scored over its own length (the
    # shorter of it and the reference), as alone, with libvmaf's warning per pair
    lraw, lfb = ["-w", 64, "-h", 48, "-p", "420", "-b", 8], 64 * 48 * 3 // 2  # VMAF's ADM needs 33x33
    ref6 = write(j("ref6.yuv"), noise(lfb * 6, 41))
    lens = {"e6": 6, "e4": 4, "e5": 5, "e8": 8}
    encs = {k: write(j(f"{k}.yuv"), noise(lfb * n, 50 + n)) for k, n in lens.items()}
    lfeats = ["--feature", "psnr", "--feature", "motion", "--model", "version=vmaf_v0.6.1"]
    for order in (("e6", "e4", "e5", "e8"), ("e8", "e5", "e4", "e6")):
        multi = ["-r", ref6, *lraw, *lfeats, "--json", "--precision", "max"]
        for k in order:
            multi += ["-d", encs[k], "-o", j(f"len_{k}.json")]
        p = expect_ok(f"encodes of different lengths {order}", multi)
        for k in order:
            alone = run("-r", ref6, "-d", encs[k], *lraw, *lfeats, "--json", "--precision", "max", "-o", j("alone.json"))
            checks += 1
            got = json.load(open(j(f"len_{k}.json")))
            if alone.returncode != 0 or strip(open(j(f"len_{k}.json")).read()) != strip(open(j("alone.json")).read()):
                failures.append(f"encodes of different lengths {order}: {k} ({len(got['frames'])} frames) differs "
                                f"from its own run")
            want = {"e4": f'"{encs["e4"]}" ended before "{ref6}"; scored the first 4 frames',
                    "e5": f'"{encs["e5"]}" ended before "{ref6}"; scored the first 5 frames',
                    "e8": f'"{ref6}" ended before "{encs["e8"]}"; scored the first 6 frames'}.get(k)
            if want and want not in p.stderr:
                failures.append(f"encodes of different lengths: no warning {want!r}: {p.stderr!r}")
        if p.stderr.count("ended before") != 3:
            failures.append(f"encodes of different lengths: warnings {p.stderr!r}")
    with open(ref6, "rb") as f:
        p = subprocess.run([BIN, "-r", "-", "-d", encs["e6"], "-d", encs["e4"], *map(str, lraw), "-n", "--feature",
                            "psnr"], stdin=f, capture_output=True, text=True, timeout=120)
    checks += 1
    errs = [l for l in p.stderr.splitlines() if l.startswith("twinmaf: error: ")]
    if p.returncode != 2 or len(errs) != 1 or "-: scoring each distorted input over its own length reads the " \
            "inputs twice" not in errs[0]:
        failures.append(f"encodes of different lengths, reference on stdin: exit {p.returncode}, {p.stderr!r}")
    expect_error("outputs per encode", ["-r", ref, "-d", dis, "-d", dis2, *raw, "-n", "--feature", "psnr",
                                        "-o", j("x.json")], "give one -o per -d")

    # streams declaring a huge picture, then ending: memory follows the bytes
    # that arrive (the pictures are not touched before), one error line
    import threading
    huge = b"YUV4MPEG2 W32768 H32768 F25:1 Ip A1:1 C444p16\nFRAME\n" + noise(64, 3)
    fifo = j("huge.fifo")
    os.mkfifo(fifo)
    feeder = threading.Thread(target=lambda: open(fifo, "wb").write(huge))
    feeder.start()
    checks += 1
    p = subprocess.run([BIN, "-r", "-", "-d", fifo, "-n", "--feature", "psnr", "--backend", "cpu"], input=huge,
                       capture_output=True, timeout=120)
    if feeder.is_alive():  # twinmaf never opened the pipe: let the writer go
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    feeder.join()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    err = p.stderr.decode().strip().splitlines()
    if p.returncode != 2 or len(err) != 1 or "frame 0 is truncated" not in err[0]:
        failures.append(f"huge y4m streams: exit {p.returncode}, {p.stderr!r}")
    if peak_mb > 1024 and not SANITIZED:
        failures.append(f"huge y4m streams: peak memory {peak_mb} MB")

    # odd and tiny sizes: a value or a clear error, never a crash
    # 1x1 4:2:0 has empty chroma planes: psnr says so instead of scoring 0/0 pixels.
    a = write(j("one_a.yuv"), noise(3 * 2, 7))  # stored chroma of 1x1 4:2:0: 1x1 each
    b = write(j("one_b.yuv"), noise(3 * 2, 8))
    expect_error("1x1 4:2:0 chroma", ["-r", a, "-d", b, "-w", 1, "-h", 1, "-p", "420", "-b", 8, "-n", "--feature", "psnr",
                                      "-o", j("one.json")], "chroma planes of a 1x1 420 picture are empty")
    expect_ok("1x1 4:2:0 luma only", ["-r", a, "-d", b, "-w", 1, "-h", 1, "-p", "420", "-b", 8, "-n", "--feature",
                                      "psnr=enable_chroma=false"])
    for (tw, th, fmt) in [(1, 1, "444"), (2, 1, "422"), (3, 3, "420"), (17, 9, "420"), (5, 7, "422")]:
        cw = tw if fmt == "444" else (tw + 1) // 2
        ch = (th + 1) // 2 if fmt == "420" else th
        n = (tw * th + 2 * cw * ch) * 2
        a = write(j("tiny_a.yuv"), noise(n, 7))
        b = write(j("tiny_b.yuv"), noise(n, 8))
        p = run("-r", a, "-d", b, "-w", tw, "-h", th, "-p", fmt, "-b", 8, "-n", "--feature", "psnr", "--json",
                "-o", j("tiny.json"))
        checks += 1
        if p.returncode != 0:
            failures.append(f"psnr {tw}x{th} {fmt}: exit {p.returncode}: {p.stderr.strip()}")
        else:
            js = json.load(open(j("tiny.json")))
            if len(js["frames"]) != 2:
                failures.append(f"psnr {tw}x{th} {fmt}: {len(js['frames'])} frames")

print(f"cli: {checks} checks, {len(failures)} failures")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
