#!/usr/bin/env python3
"""Writes the seed corpora of container_fuzzer, access_points_fuzzer and
push_fuzzer (tests/fuzz/corpus/) with the ffmpeg on PATH (libx264, libx265,
libvpx-vp9).

container: tiny real streams, a few KB each: H.264 in MP4/Matroska/Annex B
(closed GOPs of 50 with and without B-frames, 10-bit, 4:4:4 odd-sized,
gray), HEVC (open GOP with a CRA and its RASL pictures, 10-bit IDR GOPs,
4:2:2 Annex B, 4:4:4 12-bit), VP9 (IVF with key frames 50 apart, odd-sized
Matroska, 4:4:4 10-bit WebM). The 100-frame streams split into stretches.

access_points: the same streams' packets in access_points_fuzzer's format
(codec byte, extradata, then [pts offset][length][packet] records), each NAL
unit cut to its first bytes (the classification reads no more), and a few
streams of packet kinds given directly.

push: seeded random bytes of 64 B to 4 KiB. push_fuzzer reads its choices
through FuzzedDataProvider, so any bytes are a run; their sizes matter:
libFuzzer grows inputs from the largest seed, and a run of a few frames of
real pictures with options needs a few hundred bytes or more.

The files named by their SHA-1 in these corpora are not written here: they
are what `<fuzzer> -set_cover_merge=1 -use_counters=0` kept of the corpora
grown in 600 s runs (new error paths, formats, features), so that CI's 60 s
starts from that coverage.
"""
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONTAINER = os.path.join(HERE, "corpus", "container")
ACCESS = os.path.join(HERE, "corpus", "access_points")
PUSH = os.path.join(HERE, "corpus", "push")

SRC = "testsrc2=size=32x32:rate=25"
STREAMS = {
    "h264_gop50.mp4": [SRC, "100", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "45", "-g", "50",
                       "-keyint_min", "50", "-sc_threshold", "0", "-bf", "0"],
    "h264_bframes.mkv": [SRC, "100", "-c:v", "libx264", "-preset", "veryfast", "-crf", "45", "-g", "50",
                         "-keyint_min", "50", "-sc_threshold", "0", "-bf", "2"],
    "h264_annexb.h264": ["testsrc2=size=16x16:rate=25", "8", "-c:v", "libx264", "-preset", "veryfast", "-crf", "40",
                         "-bf", "2"],
    "h264_10bit.mkv": ["testsrc2=size=24x24:rate=25", "6", "-pix_fmt", "yuv420p10le", "-c:v", "libx264",
                       "-preset", "veryfast", "-crf", "40"],
    "h264_444.mp4": [SRC, "5", "-vf", "scale=16:14", "-pix_fmt", "yuv444p", "-c:v", "libx264", "-preset",
                     "veryfast", "-crf", "40"],
    "h264_444_odd.mp4": [SRC, "5", "-vf", "scale=17:15,format=yuv444p", "-c:v", "libx264", "-preset", "veryfast",
                         "-crf", "40"],
    "h264_gray.mkv": ["testsrc2=size=16x16:rate=25", "5", "-pix_fmt", "gray", "-c:v", "libx264", "-preset",
                      "veryfast", "-crf", "40"],
    "hevc_cra.mkv": [SRC, "100", "-c:v", "libx265", "-preset", "ultrafast", "-crf", "45", "-x265-params",
                     "log-level=none:keyint=50:min-keyint=50:scenecut=0:open-gop=1:bframes=3"],
    "hevc_10bit_idr.mp4": [SRC, "100", "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast",
                           "-crf", "45", "-x265-params",
                           "log-level=none:keyint=50:min-keyint=50:scenecut=0:open-gop=0:bframes=2"],
    "hevc_422.hevc": ["testsrc2=size=16x16:rate=25", "6", "-pix_fmt", "yuv422p", "-c:v", "libx265", "-preset",
                      "ultrafast", "-crf", "40", "-x265-params", "log-level=none"],
    "hevc_444p12.mkv": [SRC, "4", "-vf", "format=yuv444p12le", "-c:v", "libx265", "-preset", "ultrafast", "-crf",
                        "40", "-x265-params", "log-level=none"],
    "vp9_gop50.ivf": ["testsrc2=size=64x64:rate=25", "100", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                      "-cpu-used", "8", "-crf", "60", "-b:v", "0", "-g", "50", "-keyint_min", "50"],
    "vp9_odd.mkv": [SRC, "60", "-vf", "scale=17:15,format=yuv420p", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                    "-cpu-used", "8", "-crf", "60", "-b:v", "0", "-g", "49", "-keyint_min", "49"],
    "vp9_444p10.webm": ["testsrc2=size=16x16:rate=25", "6", "-pix_fmt", "yuv444p10le", "-c:v", "libvpx-vp9",
                        "-deadline", "realtime", "-cpu-used", "8", "-crf", "50", "-b:v", "0"],
}
CODECS = {"h264": 0, "hevc": 1, "vp9": 2}
KEEP = 6  # bytes of each NAL unit (or VP9 frame) kept


def encode(name, args):
    lavfi, frames, rest = args[0], args[1], args[2:]
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", lavfi, "-frames:v",
                    frames, *rest, os.path.join(CONTAINER, name)], check=True)


def hexdump(lines):
    out = bytearray()
    for line in lines:
        if ":" not in line[:9]:
            break
        out += bytes.fromhex("".join(line[10:50].split()))
    return bytes(out)


def probe(path):
    """(codec, extradata, [(pts, data)]) of the video stream."""
    text = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_streams", "-show_packets",
                           "-show_data", path], check=True, capture_output=True, text=True).stdout.splitlines()
    codec, extradata, packets, pts = None, b"", [], None
    for i, line in enumerate(text):
        if line.startswith("codec_name="):
            codec = line.split("=", 1)[1]
        elif line == "extradata=":
            extradata = hexdump(text[i + 1:])
        elif line.startswith("pts="):
            v = line.split("=", 1)[1]
            pts = int(v) if v != "N/A" else None
        elif line == "data=":
            packets.append((pts, hexdump(text[i + 1:])))
    return codec, extradata, packets


def length_size(codec, extradata):
    if codec == "h264" and len(extradata) >= 7 and extradata[0] == 1:
        return (extradata[4] & 3) + 1
    if codec == "hevc" and len(extradata) >= 23 and extradata[0] == 1:
        return (extradata[21] & 3) + 1
    return 0


def cut(codec, ls, packet):
    """The packet with each NAL unit cut to KEEP bytes (lengths rewritten)."""
    if codec == "vp9":
        return packet[:KEEP]
    out = bytearray()
    if ls:
        at = 0
        while at + ls <= len(packet):
            n = int.from_bytes(packet[at:at + ls], "big")
            nal = packet[at + ls:at + ls + n][:KEEP]
            out += len(nal).to_bytes(ls, "big") + nal
            at += ls + n
        return bytes(out)
    starts = []
    i = 0
    while i + 2 < len(packet):
        if packet[i] == 0 and packet[i + 1] == 0 and packet[i + 2] == 1:
            starts.append(i + 3)
            i += 3
        else:
            i += 1
    for k, s in enumerate(starts):
        end = starts[k + 1] - 3 if k + 1 < len(starts) else len(packet)
        out += b"\x00\x00\x01" + packet[s:end][:KEEP]
    return bytes(out)


def access_seed(path):
    codec, extradata, packets = probe(path)
    if codec not in CODECS:
        return None
    ls = length_size(codec, extradata)
    extradata = extradata[:23]  # what packet_syntax() reads of an avcC/hvcC
    order = sorted(range(len(packets)), key=lambda i: (packets[i][0] is None, packets[i][0] or 0, i))
    rank = {i: r for r, i in enumerate(order)}
    out = bytearray([CODECS[codec], len(extradata)]) + extradata
    for i, (_, data) in enumerate(packets):
        offset = max(-128, min(127, 4 * (rank[i] - i)))
        p = cut(codec, ls, data)
        out += struct.pack(">bH", offset, len(p)) + p
    return bytes(out)


def direct_seed(n, points, leading, reorder):
    """Packet kinds given directly (byte 0 bit 2): kRandom at `points`,
    `leading` kLeading packets after each point but the first (output just
    before it), pairs of other packets swapped as B-frames are when
    `reorder`."""
    kinds, pts = [0] * n, [4 * i for i in range(n)]
    for p in points:
        kinds[p] = 1
        for k in range(1, leading + 1 if p else 1):
            if p + k < n:
                kinds[p + k] = 2
                pts[p + k] = 4 * p - 2 * (leading + 1) + 2 * k - 1  # odd: no other packet's
    if reorder:
        for i in range(1, n - 1, 3):
            if kinds[i] == 0 and kinds[i + 1] == 0:
                pts[i], pts[i + 1] = pts[i + 1], pts[i]
    out = bytearray([4, 0])
    for i in range(n):
        out += struct.pack(">bB", pts[i] - 4 * i, kinds[i])
    return bytes(out)


def main():
    os.makedirs(CONTAINER, exist_ok=True)
    os.makedirs(ACCESS, exist_ok=True)
    for name, args in STREAMS.items():
        encode(name, args)
    for name in STREAMS:
        seed = access_seed(os.path.join(CONTAINER, name))
        if seed:
            with open(os.path.join(ACCESS, os.path.splitext(name)[0]), "wb") as f:
                f.write(seed)
    os.makedirs(PUSH, exist_ok=True)
    rng = random.Random(33)
    for k, size in enumerate([64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096] * 2):
        with open(os.path.join(PUSH, f"random_{k:02d}_{size}"), "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(size)))
    for name, args in {"direct_idr": (120, {0, 50, 100}, 0, False),
                       "direct_cra_leading": (120, {0, 50, 100}, 3, True),
                       "direct_short": (60, {0, 20, 40}, 0, False)}.items():
        with open(os.path.join(ACCESS, name), "wb") as f:
            f.write(direct_seed(*args))


if __name__ == "__main__":
    sys.exit(main())
