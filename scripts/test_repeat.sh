#!/usr/bin/env bash
# Run the whole test suite N times from a clean clone of the committed HEAD; one line per run
# (number, PASS/FAIL, pytest's counts, seconds) and a summary; exits 1 if any run failed.
#
#   scripts/test_repeat.sh [N]        N runs (default 10), one after another
#   BUSY=1 scripts/test_repeat.sh 3   the same while a second clone runs the suite beside it,
#                                     over and over, to load the machine as a busy CI box does
#   FRESH=1 ...                       a new clone (and .venv) for every run, not only the first
#
# Between runs the clone is reset to a clean checkout (`git clean -xdf`, keeping only .venv),
# so no cache, database or artefact of one run is seen by the next. Uncommitted changes are
# not tested: commit first. TEST_DATABASE_URL, if set, is passed on (Postgres variants).
# Each run's output is kept in the printed work folder (KEEP=0 removes it when all passed).
set -uo pipefail

n=${1:-${N:-10}}
case "$n" in '' | *[!0-9]* | 0) echo "usage: $0 [N>0]" >&2; exit 2 ;; esac
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/gurka-repeat.XXXXXX")
busy_pid=""
beside=""
if [ "${BUSY:-0}" != 0 ]; then beside=" beside a second suite"; fi

clone() {  # clone <dir>: the committed HEAD, its .venv installed
  rm -rf "$1"
  git clone --quiet --no-hardlinks "$repo" "$1" && git -C "$1" checkout --quiet --detach "$head" \
    && make -C "$1" --no-print-directory install >"$1.install.log" 2>&1 \
    || { echo "could not set up a clone in $1 (see $1.install.log)" >&2; exit 2; }
}

stop_busy() {
  if [ -n "$busy_pid" ]; then
    kill -TERM -- "-$busy_pid" 2>/dev/null
    wait "$busy_pid" 2>/dev/null
    busy_pid=""
  fi
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

echo "commit $head, $n run(s)$beside, in $work"
clone "$work/clone"
if [ -n "$beside" ]; then
  clone "$work/busy"
  # in its own session (process group), so that it, and only it, is stopped as a whole
  (cd "$work/busy" && exec setsid bash -c 'i=0; while :; do i=$((i + 1)); git clean -xdfq -e .venv;
      make --no-print-directory test >"../busy-run-$i.log" 2>&1; done' </dev/null >/dev/null 2>&1) &
  busy_pid=$!
fi

failed=0
total=0
for i in $(seq 1 "$n"); do
  if [ "${FRESH:-0}" != 0 ] && [ "$i" -gt 1 ]; then clone "$work/clone"; fi
  git -C "$work/clone" clean -xdfq -e .venv
  log="$work/run-$i.log"
  start=$(date +%s.%N)
  make -C "$work/clone" --no-print-directory test >"$log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  counts=$(grep -E '[0-9]+ (passed|failed|error)' "$log" | tail -1 | sed -E 's/^=+ //; s/ in [0-9.]+s.*$//; s/ =+$//')
  if [ "$rc" -eq 0 ]; then verdict=PASS; else verdict=FAIL; failed=$((failed + 1)); fi
  total=$((total + secs))
  printf 'run %2d/%d  %s  %-45s %5s s\n' "$i" "$n" "$verdict" "${counts:-(no pytest summary)}" "$secs"
  if [ "$rc" -ne 0 ]; then
    grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/           /'
    echo "           log: $log"
  fi
done
stop_busy
echo "summary: $((n - failed))/$n runs passed, $failed failed, ${total} s in all$beside"
if [ -n "$beside" ]; then
  echo "busy suite: $(ls "$work"/busy-run-*.log 2>/dev/null | wc -l) run(s) started beside them"
fi
if [ "$failed" -eq 0 ] && [ "${KEEP:-1}" = 0 ]; then rm -rf "$work"; fi
[ "$failed" -eq 0 ]
