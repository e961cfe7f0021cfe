# Sourced by results/*/run.sh: `step DIR NAME COMMAND...` runs COMMAND with its output in DIR/NAME.log, unless that
# log already says the step finished (a match's "games/hour" line, a suite's "solved" line); then it says "done".
step() {
  local dir=$1 name=$2; shift 2
  if [ -s "$dir/$name.log" ] && grep -q "games/hour\|solved" "$dir/$name.log"; then echo "done: $name"; return; fi
  echo "== $name: $*"
  "$@" > "$dir/$name.log" 2>&1
  tail -n 4 "$dir/$name.log"
}
# `need NAME`: results/data/NAME's label file checked against the SHA-256 the repository keeps; when it is missing or
# differs, say how to make it and stop the script.
need() {
  if ! (cd "results/data/$1" && sha256sum --quiet -c labels.epd.gz.sha256) 2>/dev/null; then
    echo "results/data/$1 is missing or differs from the reference: make it first (bash results/data/$1/run.sh)" >&2
    exit 1
  fi
}
