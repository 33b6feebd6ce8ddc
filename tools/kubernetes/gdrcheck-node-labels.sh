#!/bin/sh
# Runs in the gdrcheck DaemonSet (gdrcheck-daemonset.yaml): checks the host
# through its read-only mount and writes the verdict as node-feature-
# discovery labels (NFD's local feature files), so pods can select
# GPUDirect-ready nodes:
#   gdrcheck.io/status=ok|warning|critical|unknown
#   gdrcheck.io/gdr-ready=true|false
# and keeps the last JSON report next to it for `gdrcheck cluster --from`.
#   HOST_ROOT      the host's / mounted read-only      (default: /host)
#   FEATURES_DIR   NFD's features.d on the host        (default: /etc/kubernetes/node-feature-discovery/features.d)
#   REPORT_DIR     where the JSON report goes          (default: FEATURES_DIR/../gdrcheck)
#   INTERVAL       seconds between checks              (default: 300)
#   ONCE           1: one check, then exit with its status
: "${HOST_ROOT:=/host}" "${FEATURES_DIR:=/etc/kubernetes/node-feature-discovery/features.d}"
: "${REPORT_DIR:=$FEATURES_DIR/../gdrcheck}" "${INTERVAL:=300}" "${ONCE:=0}" "${GDRCHECK:=gdrcheck}"

# Replaces FILE with CONTENT at once (a reader never sees half a file).
publish() {
  tmp=$(mktemp "$1.XXXXXX") || return 1
  if printf '%s\n' "$2" >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$1"; then
    return 0
  fi
  rm -f "$tmp"
  return 1
}

check_once() {
  mkdir -p "$FEATURES_DIR" "$REPORT_DIR" || return 3
  report=$("$GDRCHECK" node --root "$HOST_ROOT" --json 2>/dev/null)
  rc=$?
  case $rc in
    0) status=ok ready=true ;;
    1) status=warning ready=false ;;
    2) status=critical ready=false ;;
    *) status=unknown ready=false ;;
  esac
  # A run that did not produce a report keeps the last report file, but
  # the labels say unknown: never a stale "ready".
  [ -n "$report" ] && publish "$REPORT_DIR/node.json" "$report"
  publish "$FEATURES_DIR/gdrcheck" "gdrcheck.io/status=$status
gdrcheck.io/gdr-ready=$ready"
  return "$rc"
}

if [ "$ONCE" = 1 ]; then
  check_once
  exit $?
fi
while :; do
  check_once
  sleep "$INTERVAL"
done
