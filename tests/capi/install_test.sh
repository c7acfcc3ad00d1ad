#!/bin/bash
# install_test.sh BUILD_DIR SOURCE_DIR SCORE_BIN TESTDATA — what `cmake --install`
# gives a libvmaf client (tests/capi/CMakeLists.txt):
#  - lib/libvmaf.so.3 (soname libvmaf.so.3, no FFmpeg library needed) and its
#    links, include/libvmaf/ with libvmaf's five headers (six with CUDA),
#    lib/pkgconfig/libvmaf.pc;
#  - the library exports the functions the installed headers declare, every
#    one of them and nothing else, all in libvmaf's name space (vmaf_*);
#  - each header compiles on its own as C11 and as C++;
#  - capi_score.c built from the prefix alone (pkg-config, no build tree)
#    prints what the build tree's SCORE_BIN prints on a golden pair.
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR SCORE_BIN TESTDATA}
src=${2:?}
score_bin=${3:?}
data=${4:?}
fail() { echo "install_test: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

pc=$(find "$prefix" -name libvmaf.pc -path '*/pkgconfig/*')
[[ -n $pc ]] || fail "no lib*/pkgconfig/libvmaf.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in libvmaf.so libvmaf.so.3; do
  [[ -L $libdir/$f ]] || fail "$libdir/$f is not a link"
done
lib=$(readlink -f "$libdir/libvmaf.so.3")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == libvmaf.so.3 ]] || fail "soname is '$soname', not libvmaf.so.3"

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[[ $needed != *libav* ]] || fail "libvmaf.so.3 needs FFmpeg's libraries: $needed"

headers=(libvmaf.h model.h picture.h feature.h version.h)
[[ -f $prefix/include/libvmaf/libvmaf_cuda.h ]] && headers+=(libvmaf_cuda.h)
installed=$(cd "$prefix/include/libvmaf" && ls | sort | tr '\n' ' ')
wanted=$(printf '%s\n' "${headers[@]}" | sort | tr '\n' ' ')
[[ $installed == "$wanted" ]] || fail "include/libvmaf holds '$installed', not '$wanted'"

# Exported = declared: function names followed by '(' in the headers.
declared=$(cat "${headers[@]/#/$prefix/include/libvmaf/}" | grep -v '^ *\*' |
  grep -oE '\bvmaf_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWiV]$/ {print $3}' | sed 's/@.*//' | sort -u)
others=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^vmaf_' || true)
[[ -z $others ]] || fail "exports beyond libvmaf's API: $(echo $others | head -c 300)"
if [[ $declared != "$exported" ]]; then
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  fail "exported functions differ from the installed headers' (< declared, > exported)"
fi
n_exported=$(echo "$exported" | wc -l)
(( n_exported >= 29 )) || fail "only $n_exported functions exported"

for h in "${headers[@]}"; do
  printf '#include <libvmaf/%s>\n' "$h" > "$tmp/h.c"
  cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$tmp/h.c" || fail "$h does not compile alone (C11)"
  c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$prefix/include" "$tmp/h.c" ||
    fail "$h does not compile alone (C++)"
done

export PKG_CONFIG_PATH=$(dirname "$pc")
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -o "$tmp/capi_score" "$src/tests/capi/capi_score.c" \
  $(pkg-config --cflags --libs libvmaf) || fail "capi_score.c does not build with pkg-config's flags"
resolved=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/capi_score" | awk '$1 == "libvmaf.so.3" {print $3}')
[[ $(readlink -f "$resolved") == "$lib" ]] || fail "the client loads '$resolved', not the installed library"

pair=(-m version:vmaf_v0.6.1:vmaf -f psnr,enable_chroma=false -q psnr_y -n 4
  "$data/clips/synth_576x324_420p8_48f.yuv" "$data/clips/synth_576x324_420p8_48f__x264crf38.yuv" 576 324 420 8)
LD_LIBRARY_PATH=$libdir "$tmp/capi_score" "${pair[@]}" > "$tmp/installed.txt"
"$score_bin" "${pair[@]}" > "$tmp/tree.txt"
cmp -s "$tmp/installed.txt" "$tmp/tree.txt" || fail "the installed client prints other values than the build tree's"
lines=$(wc -l < "$tmp/installed.txt")
grep -q '^model vmaf 3 [0-9]' "$tmp/installed.txt" && grep -q '^pooled psnr_y mean [0-9]' "$tmp/installed.txt" ||
  fail "the client printed no score: $(head -c 300 "$tmp/installed.txt")"
echo "install_test: soname $soname, ${#headers[@]} headers, $n_exported functions exported, pkg-config client prints the build tree's $lines lines"
