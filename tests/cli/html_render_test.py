#!/usr/bin/env python3
"""The --html report renders in headless Chromium with nothing but the file:
after its scripts run, every metric's plot holds Plotly's SVG with one line
per distorted input, and a screenshot of the page is not blank.

Usage: html_render_test.py TWINMAF_BIN CLIPS_DIR   (needs chromium: scripts/deps.sh)"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

BIN, CLIPS = sys.argv[1], sys.argv[2]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    sys.exit("html_render_test: chromium is missing (Debian: apt-get install chromium; scripts/deps.sh)")
failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(f"{name}: {detail}")


def png_pixels(path):
    """Distinct raw scanline byte values of a PNG (filter bytes included)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return set()
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return set(zlib.decompress(idat))


with tempfile.TemporaryDirectory() as d:
    j = lambda name: os.path.join(d, name)
    for name, clip in [("ref.y4m", "kleiber_576x324_420p8_48f__x264crf18.mkv"),
                       ("a.y4m", "kleiber_576x324_420p8_48f__x264crf28.mkv"),
                       ("b.y4m", "kleiber_576x324_420p8_48f__x264crf45.mkv")]:
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", os.path.join(CLIPS, clip), "-frames:v", "12",
                        "-f", "yuv4mpegpipe", j(name)], check=True)
    p = subprocess.run([BIN, "-r", j("ref.y4m"), "-d", j("a.y4m"), "-d", j("b.y4m"), "--feature", "psnr", "-q",
                        "--html", j("report.html")], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"twinmaf failed: {p.stderr}")
    html = open(j("report.html")).read()
    plots = len(re.findall(r'<div id="plot-\d+" class="twinmaf-plot">', html))
    # No network: the page must render from the file alone.
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--virtual-time-budget=20000", f"--user-data-dir={j('profile')}", "--proxy-server=127.0.0.1:9",
             "--hide-scrollbars"]
    url = "file://" + j("report.html")
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True, timeout=180).stdout
    blocks = re.split(r'<div id="plot-\d+" class="twinmaf-plot', dom)[1:]
    check("plots in the page", plots >= 6 and len(blocks) == plots, f"{plots} plot divs, {len(blocks)} in the DOM")
    for k, block in enumerate(blocks):
        block = block.split('class="twinmaf-plot', 1)[0]
        check(f"plot {k}: Plotly SVG", 'class="main-svg"' in block, block[:200])
        traces = re.findall(r'class="trace scatter', block)
        check(f"plot {k}: one line per input", len(traces) == 2, f"{len(traces)} traces")
        check(f"plot {k}: drawn", re.search(r'<path class="js-line" d="M[0-9.]+,[0-9.]+L', block) is not None)
    check("legend names the inputs", "a.y4m" in dom and "b.y4m" in dom)
    subprocess.run([*flags, f"--screenshot={j('shot.png')}", "--window-size=1280,2400", url], capture_output=True,
                   timeout=180)
    values = png_pixels(j("shot.png")) if os.path.exists(j("shot.png")) else set()
    check("screenshot not blank", len(values) > 16, f"{len(values)} distinct byte values")

print(f"{len(failures)} failures")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
