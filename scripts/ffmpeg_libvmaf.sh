#!/bin/bash
# ffmpeg_libvmaf.sh [WORKDIR] — FFmpeg's libvmaf filter on twinmaf's libvmaf.so.3
# (docs/capi.md): installs the C API of BUILD (default build/release: the
# targets vmaf and twinmaf built, ctest's golden_prepare run) into
# WORKDIR/prefix, fetches Debian's ffmpeg source package with a private
# deb-src list (WORKDIR/apt, nothing in /etc/apt changes), builds a minimal
# ffmpeg (raw video in, the libvmaf filter, null out) against it with
# PKG_CONFIG_PATH, then scores golden pairs with
#   ffmpeg -f rawvideo ... -i DIS -f rawvideo ... -i REF -lavfi libvmaf=log_fmt=json:log_path=F -f null -
# and requires, per pair: the JSON the filter writes == the twinmaf CLI's on
# the same files, and == libvmaf's own recorded file (tests/data golden runs),
# byte for byte apart from the "version" and "fps" lines; the "VMAF score"
# line ffmpeg prints == the CLI's pooled mean at %f.
#
# ctest capi_ffmpeg runs it (WORKDIR in the build tree, kept between runs):
# fetching and building the minimal FFmpeg takes about 2.5 minutes on 2
# cores, the comparison 10 s. WORKDIR defaults to /tmp/twinmaf-ffmpeg; JOBS
# (default 1) for make. The
# repository's clips are cut short, so whole 8-bit pairs are few; with the
# whole golden set (shared/golden), CLIPS=<decoded clips> RUNS=<its runs>
# add a 1080p, a 4:2:2 and a 4:4:4 pair.
#
# Recorded (Debian 12, ffmpeg 5.1.9-0+deb12u1, twinmaf 0.1.0), with the whole
# golden set, every pair "JSON == CLI's, == libvmaf's: ok", e.g.
#   result: kleiber_1920x1080_420p8_24f__x264crf28: ffmpeg libvmaf filter on
#   twinmaf, 24 frames, VMAF score ['97.062558'] (CLI 97.062558); JSON == CLI's,
#   == libvmaf's: ok
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:-/tmp/twinmaf-ffmpeg}
build=${BUILD:-build/release}
jobs=${JOBS:-1}
data=$build/testdata
clips=${CLIPS:-$data/clips}
runs=${RUNS:-$data/runs}
mkdir -p "$work"
work=$(cd "$work" && pwd)

[[ -x $build/twinmaf && -e $build/src/capi/libvmaf.so.3 ]] ||
  { echo "ffmpeg_libvmaf.sh: build the targets twinmaf and vmaf in $build first" >&2; exit 2; }
[[ -d $clips && -d $runs ]] ||
  { echo "ffmpeg_libvmaf.sh: run 'ctest --test-dir $build -R golden_prepare' first" >&2; exit 2; }
for tool in apt-get dpkg-source make cc pkg-config python3; do
  command -v $tool >/dev/null || { echo "ffmpeg_libvmaf.sh: $tool is needed" >&2; exit 2; }
done

rm -rf "$work/prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig

# Debian's ffmpeg source (this release's), through a private sources list.
. /etc/os-release
scripts/debian_source.sh "$VERSION_CODENAME" ffmpeg "$work"

# A minimal ffmpeg: everything off but what the comparison needs.
mkdir -p "$work/ffbuild"
if [[ ! -x $work/ffbuild/ffmpeg ]]; then
  (cd "$work/ffbuild" && "$work/src/configure" --disable-everything --disable-autodetect --disable-doc \
    --disable-x86asm --disable-network --disable-debug --disable-ffprobe --disable-ffplay \
    --enable-libvmaf --enable-filter=libvmaf,buffer,buffersink,format,null,trim,scale,setpts,copy \
    --enable-protocol=file,pipe --enable-demuxer=rawvideo --enable-decoder=rawvideo \
    --enable-muxer=null --enable-encoder=wrapped_avframe \
    --extra-ldflags="-Wl,-rpath,$work/prefix/lib" >configure.log 2>&1 ||
    { tail -20 configure.log >&2; exit 1; })
  make -C "$work/ffbuild" -j"$jobs" ffmpeg >"$work/ffbuild/make.log" 2>&1 || { tail -20 "$work/ffbuild/make.log" >&2; exit 1; }
fi
ff=$work/ffbuild/ffmpeg
lib=$(ldd "$ff" | awk '$1 == "libvmaf.so.3" {print $3}')
[[ $(readlink -f "$lib") == $(readlink -f "$work/prefix/lib/libvmaf.so.3") ]] ||
  { echo "ffmpeg_libvmaf.sh: ffmpeg loads '$lib', not twinmaf's" >&2; exit 1; }

# Pairs of libvmaf's golden runs (8-bit: FFmpeg 5.1's filter copies
# w bytes per row, half a row above 8 bits).
status=0
pairs=(synth_576x324_420p8_48f__x264crf38 synth_576x324_420p8_48f__x265crf28 synth_576x324_420p8_48f__x264crf18)
[[ -n ${CLIPS:-} ]] &&
  pairs+=(kleiber_1920x1080_420p8_24f__x264crf28 kleiber_576x324_422p8_48f__x265crf28 kleiber_576x324_444p8_48f__x264crf28)
for pair in "${pairs[@]}"; do
  run=$runs/$pair/vmaf_v0.6.1
  [[ -f $run.cmd ]] || { echo "ffmpeg_libvmaf.sh: no golden run $run.cmd" >&2; status=1; continue; }
  read -r -a cmd < "$run.cmd"
  arg() {
    local i
    for ((i = 0; i < ${#cmd[@]} - 1; i++)); do
      if [[ ${cmd[i]} == "$1" ]]; then echo "${cmd[i + 1]}"; fi
    done
  }
  ref=$clips/$(arg -r) dis=$clips/$(arg -d) w=$(arg -w) h=$(arg -h) p=$(arg -p)
  cut=$(awk -v r="$(basename "$ref")" -v d="$(basename "$dis")" '($1 == r || $1 == d) && $2 != "all"' \
    "$clips/frames.tsv" 2>/dev/null || true)
  [[ -z $cut ]] || { echo "ffmpeg_libvmaf.sh: $pair: clips cut short here; skipped" >&2; continue; }
  out=$work/out/$pair
  mkdir -p "$out"
  raw=(-f rawvideo -pix_fmt "yuv${p}p" -s "${w}x${h}")
  "$ff" -nostdin -hide_banner -loglevel info "${raw[@]}" -i "$dis" "${raw[@]}" -i "$ref" \
    -lavfi "libvmaf=log_fmt=json:log_path=$out/ffmpeg.json:n_threads=2" -f null - 2>"$out/ffmpeg.log"
  "$build/twinmaf" -r "$ref" -d "$dis" -w "$w" -h "$h" -p "$p" -b 8 --threads 2 -q --json -o "$out/cli.json"
  python3 - "$out" "$run.json" "$pair" <<'EOF' || status=1
import json, re, sys
out, gold_path, pair = sys.argv[1:]
mask = lambda t: re.sub(r'^  "(version|fps)": .*$', "", t, flags=re.M)
ff, cli, gold = (open(p).read() for p in (f"{out}/ffmpeg.json", f"{out}/cli.json", gold_path))
printed = re.findall(r"VMAF score: ([0-9.]+)", open(f"{out}/ffmpeg.log").read())
mean = json.loads(cli)["pooled_metrics"]["vmaf"]["mean"]
frames = len(json.loads(ff)["frames"])
ok = mask(ff) == mask(cli) and mask(ff) == mask(gold) and printed == [f"{mean:f}"]
print(f"result: {pair}: ffmpeg libvmaf filter on twinmaf, {frames} frames, VMAF score {printed} "
      f"(CLI {mean:f}); JSON {'==' if mask(ff) == mask(cli) else '!='} CLI's, "
      f"{'==' if mask(ff) == mask(gold) else '!='} libvmaf's: {'ok' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
EOF
done
exit $status
