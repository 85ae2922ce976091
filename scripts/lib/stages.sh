# Stage bookkeeping for scripts/test.sh: every stage runs even after another failed (unless it needs
# what the failed one makes), each records its result and time, and a table sums them up at the end.
# Sourced, not run. Background stages write to $STAGE_LOGS/<name>.log, shown when they are awaited.

STAGE_LOGS=${STAGE_LOGS:-$(mktemp -d)}
STAGE_ORDER=()
declare -A STAGE_RESULT=() STAGE_SECS=() STAGE_PID=() STAGE_START=() STAGE_NOTE=() STAGE_FREE=()

_stage_now() { date +%s; }
# GB free where the tests write (the temp dir): a full disk fails stages in ways that name anything but the disk.
_stage_free_gb() { df -Pk "${TMPDIR:-/tmp}" 2>/dev/null | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }

# stage_ok NAME: whether NAME ran and passed.
stage_ok() { [[ ${STAGE_RESULT[$1]:-} == ok ]]; }

# _stage_blocked NAME NEEDS...: records NAME as skipped when one of NEEDS did not pass; true if so.
_stage_blocked() {
  local name=$1 need; shift
  for need in "$@"; do
    if ! stage_ok "$need"; then
      STAGE_ORDER+=("$name"); STAGE_RESULT[$name]=skipped; STAGE_SECS[$name]=0
      STAGE_NOTE[$name]="needs $need (${STAGE_RESULT[$need]:-not run})"
      echo "== $name: skipped: ${STAGE_NOTE[$name]} =="
      return 0
    fi
  done
  return 1
}

_stage_record() { # name rc started
  local name=$1 rc=$2 started=$3
  STAGE_SECS[$name]=$(($(_stage_now) - started))
  STAGE_FREE[$name]=$(_stage_free_gb)
  if ((rc == 0)); then STAGE_RESULT[$name]=ok; else STAGE_RESULT[$name]=FAILED; STAGE_NOTE[$name]="exit $rc"; fi
}

# stage NAME [--needs "A B"] -- COMMAND...: runs COMMAND in the foreground, output as it comes.
stage() {
  local name=$1 needs=""; shift
  if [[ ${1:-} == --needs ]]; then needs=$2; shift 2; fi
  [[ ${1:-} == -- ]] && shift
  # shellcheck disable=SC2086
  _stage_blocked "$name" $needs && return 0
  STAGE_ORDER+=("$name")
  echo "== $name =="
  local started rc=0
  started=$(_stage_now)
  "$@" || rc=$?
  _stage_record "$name" "$rc" "$started"
  echo "== $name: ${STAGE_RESULT[$name]} in ${STAGE_SECS[$name]} s =="
}

# stage_bg NAME [--needs "A B"] -- COMMAND...: starts COMMAND in the background (log in a file).
stage_bg() {
  local name=$1 needs=""; shift
  if [[ ${1:-} == --needs ]]; then needs=$2; shift 2; fi
  [[ ${1:-} == -- ]] && shift
  # shellcheck disable=SC2086
  _stage_blocked "$name" $needs && return 0
  STAGE_ORDER+=("$name")
  STAGE_START[$name]=$(_stage_now)
  echo "== $name: started in the background (log $STAGE_LOGS/$name.log) =="
  ("$@") >"$STAGE_LOGS/$name.log" 2>&1 &
  STAGE_PID[$name]=$!
}

# stage_wait NAME...: waits for background stages and prints their output (whole when they failed).
stage_wait() {
  local name rc
  for name in "$@"; do
    [[ -n ${STAGE_PID[$name]:-} ]] || continue
    rc=0
    wait "${STAGE_PID[$name]}" || rc=$?
    unset "STAGE_PID[$name]"
    _stage_record "$name" "$rc" "${STAGE_START[$name]}"
    echo "== $name: ${STAGE_RESULT[$name]} in ${STAGE_SECS[$name]} s (its output follows) =="
    if ((rc == 0)); then tail -n 40 "$STAGE_LOGS/$name.log"; else cat "$STAGE_LOGS/$name.log"; fi
    echo "== end of $name =="
  done
}

# stage_summary TOTAL_STARTED: prints the table; returns non-zero when a stage failed or was skipped.
stage_summary() {
  local started=$1 name failed=0
  echo
  echo "== summary =="
  printf '%-14s %-8s %8s %9s  %s\n' stage result time "GB free" note
  for name in "${STAGE_ORDER[@]}"; do
    printf '%-14s %-8s %6d s %9s  %s\n' "$name" "${STAGE_RESULT[$name]}" "${STAGE_SECS[$name]}" "${STAGE_FREE[$name]:--}" "${STAGE_NOTE[$name]:-}"
    [[ ${STAGE_RESULT[$name]} == ok ]] || failed=1
  done
  printf '%-14s %-8s %6d s\n' total "$( ((failed)) && echo FAILED || echo ok)" $(($(_stage_now) - started))
  return $failed
}

# disk_check MIN_GB: fails when the temp dir's file system has less than MIN_GB free, saying so;
# the tests (images under vfs, the broker's and S3 servers' data, 300 MB shards) need that much.
disk_check() {
  local free
  free=$(_stage_free_gb)
  echo "free: ${free} GB in ${TMPDIR:-/tmp}; $(df -Ph "$HOME" | awk 'NR == 2 { print $4 }') in $HOME"
  awk -v f="$free" -v m="$1" 'BEGIN { exit !(f >= m) }' && return 0
  echo "only ${free} GB free in ${TMPDIR:-/tmp}: the run needs about $1 GB (SHARDFLOW_MIN_FREE_GB sets it); free some space first" >&2
  return 1
}
