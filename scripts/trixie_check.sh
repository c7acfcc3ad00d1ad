#!/bin/bash
# trixie_check.sh [ROOT] — the README's two commands on Debian 13 (trixie):
# makes a chroot with debootstrap at ROOT (default /var/tmp/twinmaf-trixie;
# kept for the next run), clones this repository's HEAD into it, and runs
# scripts/demo.sh then scripts/test.sh there (their packages from the Debian
# mirror, as on a fresh machine). The host's CUDA toolkit (/usr/local/cuda),
# when present, is mounted read-only so the CUDA code is built with
# trixie's GCC 14 too. Run as root, by hand (about an hour on 2 cores; not
# part of CI). Output: the commands' own, then their summary lines; the exit
# status is the first failing command's.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/var/tmp/twinmaf-trixie}
[[ $(id -u) -eq 0 ]] || { echo "trixie_check.sh: run as root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
if [[ ! -x $root/usr/bin/apt-get ]]; then
  debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian
fi
mounts=()
cleanup() {
  for ((k = ${#mounts[@]} - 1; k >= 0; k--)); do umount -l "${mounts[k]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind SRC DST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounts+=("$2")
  [[ ${3:-} == ro ]] && mount -o remount,bind,ro "$2"
  return 0
}
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
bind /sys "$root/sys"
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
bind /dev/shm "$root/dev/shm"
[[ -d /usr/local/cuda ]] && bind "$(readlink -f /usr/local/cuda)" "$root/usr/local/cuda" ro
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -rf "$root/work/twinmaf"
mkdir -p "$root/work"
git clone -q . "$root/work/twinmaf"
log=$root/work/trixie_check.log
status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  /bin/bash -c 'set -euo pipefail
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates
    cd /work/twinmaf
    echo "=== scripts/demo.sh"; scripts/demo.sh
    g++ --version | head -1
    echo "=== scripts/test.sh"; scripts/test.sh' 2>&1 | tee "$log" || status=$?
echo
echo "=== summary (Debian 13 chroot at $root; whole output: $log)"
grep -E '^(g\+\+|=== )|vmaf_v0\.6\.1: |tests passed|tests failed|The following tests|Failed|\*\*\*|^fuzz:|^Done [0-9]+ runs' "$log" || true
exit "$status"
