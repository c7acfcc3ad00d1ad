#!/bin/bash
# record_oracle.sh ORACLE CLIPS NAME — records libvmaf runs the shared golden set lacks
# (other options, other extractors) for the golden test: for each line of
# tests/data/oracle/NAME.runs,
#   <pair> <kind> <vmaf arguments: clip names relative to CLIPS, no -o/--json>
# ORACLE (libvmaf f85a8536's `vmaf`, built with -Denable_float=true and its JSON writer printing
# every number with %.17g instead of %.6f/%.16f unless VMAF_PLAIN is set; nothing else changed)
# runs in CLIPS with `--cpumask -1` (its scalar C path, which does not depend on the machine)
# appended, twice (%.17g, then libvmaf's own format), and
# runs/<pair>/<kind>.{cmd,hp17g.json,json,rc[,stderr]} are packed into
# tests/data/oracle/NAME.tar.xz, the layout of ../shared/golden (tests/golden/prepare.sh unpacks
# them beside it).
# CLIPS: ../shared/golden/decode.sh's output. Not run by CI: its output is committed.
# With VARIANT and KINDS in the environment: only the runs whose kind matches the regex KINDS,
# their values alone as runs/<pair>/<kind>.VARIANT.{hp17g.json,json}, into NAME.VARIANT.tar.xz:
# values that depend on the processor, recorded on another one (float ADM's RCPSS:
# VARIANT=rcpss-$(twinmaf_noiseclip --rcpss), KINDS='^(float_adm|vmaf_float_)'); the golden
# test compares them on processors with that fingerprint.
set -euo pipefail
oracle=$(realpath "${1:?usage: record_oracle.sh ORACLE CLIPS NAME}")
clips=$(realpath "${2:?usage: record_oracle.sh ORACLE CLIPS NAME}")
name=${3:?usage: record_oracle.sh ORACLE CLIPS NAME}
variant=${VARIANT:-}
kinds=${KINDS:-.}
here=$(cd "$(dirname "$0")" && pwd)
list=$here/oracle/$name.runs
[[ -f $list ]] || { echo "record_oracle.sh: no $list" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r pair kind args; do
  [[ -z $pair || $pair == \#* ]] && continue
  [[ $kind =~ $kinds ]] || continue
  mkdir -p "$tmp/runs/$pair"
  base=$tmp/runs/$pair/$kind
  if [[ -n $variant ]]; then
    # shellcheck disable=SC2086
    (cd "$clips" && "$oracle" $args --cpumask -1 --json -o "$base.$variant.hp17g.json") > /dev/null 2>&1 || true
    # shellcheck disable=SC2086
    (cd "$clips" && VMAF_PLAIN=1 "$oracle" $args --cpumask -1 --json -o "$base.$variant.json") > /dev/null 2>&1 || true
    for f in "$base.$variant.hp17g.json" "$base.$variant.json"; do [[ -s $f ]] || rm -f "$f"; done
    continue
  fi
  echo "vmaf $args --cpumask -1 --json -o $kind.json" > "$base.cmd"
  # shellcheck disable=SC2086
  if (cd "$clips" && "$oracle" $args --cpumask -1 --json -o "$base.hp17g.json") > "$base.stdout" 2> "$base.stderr"; then
    echo 0 > "$base.rc"
  else
    echo $? > "$base.rc"
  fi
  # shellcheck disable=SC2086
  (cd "$clips" && VMAF_PLAIN=1 "$oracle" $args --cpumask -1 --json -o "$base.json") > /dev/null 2>&1 || true
  rm -f "$base.stdout"
  [[ -s $base.stderr ]] || rm -f "$base.stderr"
  [[ -s $base.hp17g.json ]] || rm -f "$base.hp17g.json"
  [[ -s $base.json ]] || rm -f "$base.json"
done < "$list"
out=$name${variant:+.$variant}.tar.xz
tar -C "$tmp" -cf - runs | xz -9e > "$here/oracle/$out"
echo "record_oracle.sh: $(find "$tmp/runs" -name '*.json' | wc -l) files in tests/data/oracle/$out"
