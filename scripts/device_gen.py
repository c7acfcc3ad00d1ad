#!/usr/bin/env python3
"""device_gen.py W H FRAMES OUT_REF OUT_DIS [UNIQUE [BPC]] — deterministic 4:2:0
test content for GPU-host benchmarks (a moving ramp; dis = ref plus small
noise), 8-bit or, with BPC > 8, little-endian 16-bit words. With UNIQUE, the
first UNIQUE frames repeat to FRAMES (fast to write)."""
import sys
import numpy as np

w, h, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
unique = int(sys.argv[6]) if len(sys.argv) > 6 else n
bpc = int(sys.argv[7]) if len(sys.argv) > 7 else 8
top = (1 << bpc) - 1
dtype = np.uint8 if bpc == 8 else np.dtype("<u2")
rng = np.random.default_rng(1)
yy, xx = np.mgrid[0:h, 0:w]
cy, cx = np.mgrid[0:(h + 1) // 2, 0:(w + 1) // 2]
frames = []
for t in range(unique):
    r, d = b"", b""
    for plane in (((xx + 3 * t) * 7 + yy * 5) & 255, ((cx + t) * 3 + cy) & 255, ((cx * 5 + cy * 2 + t) & 255)):
        ref = plane.astype(np.int32) << (bpc - 8)
        dis = np.clip(ref + rng.integers(-3, 4, ref.shape), 0, top)
        r += ref.astype(dtype).tobytes()
        d += dis.astype(dtype).tobytes()
    frames.append((r, d))
with open(sys.argv[4], "wb") as fr, open(sys.argv[5], "wb") as fd:
    for t in range(n):
        fr.write(frames[t % unique][0])
        fd.write(frames[t % unique][1])
