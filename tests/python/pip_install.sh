#!/bin/sh
# pip_install.sh PYTHON SOURCE BUILD TARGET: pip installs the package from the
# repository with no index and no build isolation (the system's packages
# only), reusing the CMake build BUILD, into TARGET; a fresh interpreter then
# imports it from there.
set -eu
python=$1 src=$2 build=$3 target=$4
rm -rf "$target"
cd "$src"
TWINMAF_BUILD_DIR=$build "$python" -m pip install -q --no-build-isolation --no-index --no-deps --target "$target" . \
  2>&1 | grep -v "Running pip as the 'root' user" || true
rm -rf python/twinmaf.egg-info
cd /
PYTHONPATH=$target "$python" -c 'import sys, twinmaf, twinmaf.dask
assert twinmaf.__file__.startswith(sys.argv[1]), twinmaf.__file__
print(twinmaf.__file__, twinmaf.version())' "$target"
