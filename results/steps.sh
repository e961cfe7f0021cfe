# Sourced by results/*/run.sh: `step DIR NAME COMMAND...` runs COMMAND with its output in DIR/NAME.log, unless that
# log already says the step finished (a match's "games/hour" line, a suite's "solved" line); then it says "done".
step() {
  local dir=$1 name=$2; shift 2
  if [ -s "$dir/$name.log" ] && grep -q "games/hour\|solved" "$dir/$name.log"; then echo "done: $name"; return; fi
  echo "== $name: $*"
  "$@" > "$dir/$name.log" 2>&1
  tail -n 4 "$dir/$name.log"
}
# `have NAME`: whether results/data/NAME's label file is there and the reference (the SHA-256 the repository keeps);
# `need NAME`: the same, else say how to make it and stop the script.
have() { (cd "results/data/$1" && sha256sum --quiet -c labels.epd.gz.sha256) > /dev/null 2>&1; }
need() {
  have "$1" || { echo "results/data/$1 is missing or differs from the reference: make it first" \
    "(bash results/data/$1/run.sh)" >&2; exit 1; }
}
# `made NAME`: results/data/NAME, made by its own run.sh first when it is missing, then checked against the reference
# SHA-256 the repository keeps (run.sh writes the new file's own SHA-256 over it, so it is read first; a data set
# with none committed yet is checked by `need` alone).
made() {
  have "$1" && return 0
  local sum=results/data/$1/labels.epd.gz.sha256 ref=
  ref=$(git show "HEAD:$sum" 2>/dev/null || true)
  bash "results/data/$1/run.sh"
  if [ -n "$ref" ] && [ "$(cat "$sum")" != "$ref" ]; then
    echo "results/data/$1: remade, but not the reference: SHA-256 $(cut -d' ' -f1 "$sum"), the repository's" \
      "$(echo "$ref" | cut -d' ' -f1) (git diff results/data/$1 shows the runs)" >&2; exit 1
  fi
  need "$1"
}
# `heldout DIR SPEC`: the depth-2 error of player SPEC on results/heldout-tcec and results/heldout-mixed, written to
# DIR/heldout-tcec.md and DIR/heldout-mixed.md (each skipped once written; benchmarks/heldout_error.py).
heldout() {
  local set
  for set in heldout-tcec heldout-mixed; do
    [ -s "$1/$set.md" ] && continue
    .venv/bin/python benchmarks/heldout_error.py results/$set/labels.epd --depth 2 --evals "$2" --jobs "${J:-2}" \
      > "$1/$set.md.tmp"
    mv "$1/$set.md.tmp" "$1/$set.md"
  done
}
# `finished LOG`: whether the match whose output is appended to LOG ended (its last line the closing "N games in S s"
# line; a killed match has none), so that a rerun of a finished match does not append its summary again.
finished() { [ -s "$1" ] && tail -n 1 "$1" | grep -q "games in [0-9]* s"; }
