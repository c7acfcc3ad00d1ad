#!/usr/bin/env python3
"""device_ctc_gen.py SRC.yuv W H FRAMES OUT_REF OUT_DIS — content for the CTC
preset measurements on the GPU host (numpy + OpenCV there): a photo (the first
frame of SRC, 1920x1080 4:2:0 8-bit) enlarged to 1.1 x W x H and panned (a
moving crop) as the reference; the distorted frames are it blurred (Gaussian,
sigma 1.5) and JPEG-compressed at quality 25, plane by plane. 4:2:0 8-bit."""
import sys

import cv2
import numpy as np

src, w, h, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
raw = np.fromfile(src, np.uint8, 1920 * 1080 * 3 // 2)
planes = [raw[:1920 * 1080].reshape(1080, 1920),
          raw[1920 * 1080:1920 * 1080 * 5 // 4].reshape(540, 960),
          raw[1920 * 1080 * 5 // 4:].reshape(540, 960)]
mw, mh = w * 11 // 10 // 2 * 2, h * 11 // 10 // 2 * 2
big = [cv2.resize(p, (mw >> (i > 0), mh >> (i > 0)), interpolation=cv2.INTER_CUBIC) for i, p in enumerate(planes)]


def distort(p):
    p = cv2.GaussianBlur(p, (0, 0), 1.5)
    ok, jpg = cv2.imencode(".jpg", p, [cv2.IMWRITE_JPEG_QUALITY, 25])
    assert ok
    return cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE)


with open(sys.argv[5], "wb") as fr, open(sys.argv[6], "wb") as fd:
    for t in range(n):
        x, y = (t * 6) % (mw - w) // 2 * 2, (t * 4) % (mh - h) // 2 * 2
        for i, p in enumerate(big):
            s = 1 if i else 0
            crop = np.ascontiguousarray(p[y >> s:(y >> s) + (h >> s), x >> s:(x >> s) + (w >> s)])
            fr.write(crop.tobytes())
            fd.write(distort(crop).tobytes())
