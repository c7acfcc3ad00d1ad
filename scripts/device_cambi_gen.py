#!/usr/bin/env python3
"""device_cambi_gen.py KIND W H FRAMES OUT — adversarial content for
cambi's pooling routes on the GPU host (numpy): 4:2:0, 10-bit little-endian
words unless the kind says 8.
  flat8     one mid-grey level (every c-value 0: the order-free route)
  stripes   32-wide stripes 4 codes apart with single darker samples in row 0
            (c-values below 1 among the k largest, a top-k total above 2^29:
            the order-dependent route)
  dither    a slow gradient with +-1 random dither (10 bit)
  areas     large uniform areas a code apart with a textured border
  ramp8     a slow 8-bit gradient (banding everywhere)"""
import sys

import numpy as np

kind, w, h, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
eight = kind.endswith("8")
dtype = np.uint8 if eight else np.dtype("<u2")
rng = np.random.default_rng(5)
yy, xx = np.mgrid[0:h, 0:w]
cw, ch = (w + 1) // 2, (h + 1) // 2
chroma = np.full((ch, cw), 128 if eight else 512, dtype)


def luma(t):
    if kind == "flat8":
        return np.full((h, w), 128, np.int32)
    if kind == "stripes":
        stripe = ((xx // 32 + t) & 1).astype(np.int32)
        y = np.where(stripe == 1, 164, 160)
        return np.where((yy == 0) & (stripe == 0) & (xx % 96 == 16), 159, y)
    if kind == "dither":
        return (300 + (xx + 2 * t) * 200 // w + rng.integers(-1, 2, (h, w))).astype(np.int32)
    if kind == "areas":
        y = 400 + ((xx // (w // 4) + yy // (h // 3) + t) % 3)
        edge = (xx < w // 20) | (yy < h // 20)
        return np.where(edge, 350 + rng.integers(0, 60, (h, w)), y).astype(np.int32)
    if kind == "ramp8":
        return (60 + (xx + yy + 3 * t) * 70 // (w + h)).astype(np.int32)
    raise SystemExit("unknown kind " + kind)


with open(sys.argv[5], "wb") as out:
    for t in range(n):
        out.write(luma(t).astype(dtype).tobytes() + chroma.tobytes() + chroma.tobytes())
