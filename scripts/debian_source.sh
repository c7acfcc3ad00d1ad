#!/bin/bash
# debian_source.sh SUITE PACKAGE DIR [orig] — Debian's source package PACKAGE
# of SUITE (bookworm, trixie, ...) unpacked into DIR/src, through a private
# deb-src list under DIR/apt (nothing in /etc/apt changes). With "orig": the
# upstream tarball alone, without Debian's changes (for a package whose
# Debian part the mirror may lack). Does nothing when DIR/src exists. Needs
# apt-get and dpkg-source (dpkg-dev).
set -euo pipefail
suite=${1:?usage: debian_source.sh SUITE PACKAGE DIR}
package=${2:?}
dir=${3:?}
mode=${4:-}
[[ -d $dir/src ]] && exit 0
mkdir -p "$dir/apt/lists/partial" "$dir/dl"
{
  echo "deb-src http://deb.debian.org/debian $suite main"
  echo "deb-src http://deb.debian.org/debian-security $suite-security main"
} > "$dir/apt/sources.list"
opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$dir/apt/lists")
apt-get "${opts[@]}" update >"$dir/apt/update.log" 2>&1 || { tail -5 "$dir/apt/update.log" >&2; exit 1; }
fetched=0
(cd "$dir/dl" && apt-get "${opts[@]}" source --download-only "$package" >../apt/source.log 2>&1) && fetched=1
rm -rf "$dir/src.tmp"
if [[ $mode == orig ]]; then
  orig=$(ls "$dir"/dl/"${package}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -1)
  [[ -n $orig ]] || { tail -5 "$dir/apt/source.log" >&2; exit 1; }
  mkdir -p "$dir/src.tmp"
  tar -xf "$orig" -C "$dir/src.tmp" --strip-components=1
else
  [[ $fetched == 1 ]] || { tail -5 "$dir/apt/source.log" >&2; exit 1; }
  dpkg-source -x --no-check "$dir"/dl/"${package}"_*.dsc "$dir/src.tmp" >/dev/null
fi
mv "$dir/src.tmp" "$dir/src"
