# Sourced by results/*/run.sh: `step DIR NAME COMMAND...` runs COMMAND with its output in DIR/NAME.log, unless that
# log already says the step finished (a match's "games/hour" line, a suite's "solved" line); then it says "done".
step() {
  local dir=$1 name=$2; shift 2
  if [ -s "$dir/$name.log" ] && grep -q "games/hour\|solved" "$dir/$name.log"; then echo "done: $name"; return; fi
  echo "== $name: $*"
  "$@" > "$dir/$name.log" 2>&1
  tail -n 4 "$dir/$name.log"
}
