#!/usr/bin/env bash
# Shared by results/data/*/run.sh: the record the repository keeps of a label file too large for git (issue 38):
# its SHA-256 and size (FILE.sha256), its line count, a small sample (the first 200 lines, sample.epd), and
# summary.md with the counts, sources, filters, time and positions/s from its sidecar (kept as it is, FILE.json).
# Usage: bash results/data/summarize.sh DIR FILE   (FILE relative to DIR, e.g. labels.epd.gz)
set -euo pipefail
dir=$1 file=$2
cd "$dir"
sha256sum "$file" > "$file.sha256"
if [[ $file == *.gz ]]; then cat_=(zcat); else cat_=(cat); fi
lines=$("${cat_[@]}" "$file" | wc -l)
"${cat_[@]}" "$file" | head -200 > sample.epd || true
cp "$file.json" sample.epd.json  # the sample's provenance is the whole file's
python3 - "$file" "$lines" <<'PY'
import json, sys
from pathlib import Path
file, lines = sys.argv[1], int(sys.argv[2])
side = json.loads(Path(f"{file}.json").read_text())
out = [f"# {Path.cwd().name}: {lines:,} labels in {file}", "",
       f"- file: `{file}`, {Path(file).stat().st_size / 1e6:.1f} MB, SHA-256 in `{file}.sha256`; the first 200 lines in "
       "`sample.epd`; " + ("the file itself is not committed (`run.sh` makes it)" if Path(file).stat().st_size > 50e6
                           else "committed (under 50 MB)"), ""]
out.append("| run | command | mentor(s) | labelled | seconds | labels/s | finished |")
out.append("|---|---|---|---|---|---|---|")
for r in side["runs"]:
    s = r["summary"]
    crowd = r.get("crowd")
    who = ", ".join(f"{m['id_name']} d{m['depth'] or ''}{' n' + str(m['nodes']) if m['nodes'] else ''}"
                    for m in (crowd["mentors"] if crowd else [r["mentor"]]))
    out.append(f"| {r['run_id'][:8]} | `{r['command']}` | {who} | {s['labelled']} | {s['seconds']:.0f} | "
               f"{s['positions_per_second']:.1f} | {r['finished_utc'] or 'no'} |")
last = side["runs"][-1]
out += ["", "Settings of the last run (sources, filters):", "", "```", json.dumps(last["settings"], indent=1), "```",
        "", "What the sampling left out (last run): " + (", ".join(f"{k} {v}" for k, v in last["summary"]["sampling"].items()) or "nothing")]
Path("summary.md").write_text("\n".join(out) + "\n")
print("\n".join(out))
PY
