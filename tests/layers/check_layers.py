#!/usr/bin/env python3
"""The include rules of DESIGN.md section 3, checked on every source file.

Layers point one way: base -> core -> {io, model, output, gpu} -> features ->
engine -> api -> tools. A file may include its own layer and the layers
below it; the four middle layers do not include each other. The public
headers in include/twinmaf/ are at the bottom (status.h, picture.h, types.h)
or at the top (twinmaf.h: the API, for api/ and its users); tools/ sees the
public headers and its own files only. The C API (src/capi) is a user of the
API like tools/: twinmaf's public headers, libvmaf's headers (include/libvmaf,
which include one another only) and its own files.

Usage: check_layers.py REPO_ROOT  (exit 1 and one line per violation)
"""
import pathlib
import re
import sys

RANK = {"base": 0, "core": 1, "io": 2, "model": 2, "output": 2, "gpu": 2, "features": 3, "engine": 4, "api": 5}
PUBLIC_BOTTOM = {"twinmaf/status.h", "twinmaf/picture.h", "twinmaf/types.h"}
LIBVMAF_HEADERS = {"libvmaf.h", "model.h", "picture.h", "feature.h", "version.h", "libvmaf_cuda.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(owner: str, header: str) -> bool:
    """Whether a file of layer `owner` (a src/ folder, "public" or "tools") may include `header`."""
    if header in PUBLIC_BOTTOM:
        return True
    if header == "twinmaf/twinmaf.h":
        return owner in ("api", "tools", "capi")
    top = header.split("/", 1)[0]
    if owner == "libvmaf":
        return top == "libvmaf" or header in LIBVMAF_HEADERS
    if owner == "capi":
        return top in ("capi", "libvmaf")
    if owner == "public":
        return False
    if owner == "tools":
        return top == "tools"
    if top not in RANK:
        return False
    if top == owner:
        return True
    return RANK[top] < RANK[owner]


def violations(root: pathlib.Path):
    for path in sorted(root.glob("src/**/*")) + sorted(root.glob("include/**/*")) + sorted(root.glob("tools/**/*")):
        if path.suffix not in (".h", ".cpp", ".cu", ".cuh"):
            continue
        rel = path.relative_to(root).parts
        if rel[0] == "src":
            owner = rel[1]
        elif rel[0] == "include":
            owner = "libvmaf" if rel[1] == "libvmaf" else "public"
        else:
            owner = "tools"
        for header in INCLUDE.findall(path.read_text(errors="replace")):
            if not allowed(owner, header):
                yield f"{path.relative_to(root)}: includes \"{header}\" ({owner} may not)"


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    # The rules themselves: each must refuse what it is there to refuse.
    assert not allowed("features", "engine/session.h")
    assert not allowed("gpu", "features/twin.h")
    assert not allowed("model", "features/feature.h")
    assert not allowed("io", "gpu/device.h")
    assert not allowed("tools", "engine/session.h")
    assert not allowed("engine", "twinmaf/twinmaf.h")
    assert not allowed("public", "base/status.h")
    assert not allowed("capi", "api/scorer_impl.h") and not allowed("capi", "engine/session.h")
    assert not allowed("libvmaf", "twinmaf/twinmaf.h") and not allowed("public", "libvmaf/libvmaf.h")
    assert allowed("capi", "twinmaf/twinmaf.h") and allowed("capi", "libvmaf/libvmaf.h")
    assert allowed("engine", "features/feature.h") and allowed("tools", "twinmaf/twinmaf.h")
    bad = list(violations(root))
    for line in bad:
        print(line)
    checked = sum(1 for _ in root.glob("src/**/*.*")) + sum(1 for _ in root.glob("tools/**/*.*"))
    print(f"layers: {checked} files checked, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
