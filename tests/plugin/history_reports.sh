#!/usr/bin/env bash
# A law report per commit, for `pytest-physlaw history`: the last N first-parent commits that touch
# PATHS (default: every commit), oldest first, each checked out in a throw-away `git worktree` and its
# laws run there with that commit's own code (its plugin writes the report in its own schema).
#
#   tests/plugin/history_reports.sh N OUTDIR [PATH...]
#   pytest-physlaw history OUTDIR/*.json -o history.png -o history.md
#
# OUTDIR gets NN-SHORTSHA.json (NN orders the commits, so the shell's glob gives the history's order)
# and NN-SHORTSHA.log (pytest's output). A commit whose run writes no report is said and skipped;
# a report the history command cannot read (an older report schema) it skips and names.
# Environment: PYTHON (default: the repo's .venv/bin/python), LAW_ARGS (default: "-m law laws").
# Each run is cold (a fresh worktree has no pytest cache), except Warp's kernels, cached in OUTDIR.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
n=$1 out=$2
shift 2
repo=$(git rev-parse --show-toplevel)
python=${PYTHON:-$repo/.venv/bin/python}
read -r -a law_args <<< "${LAW_ARGS:--m law laws}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export WARP_CACHE_PATH=${WARP_CACHE_PATH:-$out/.warp_cache} MPLBACKEND=Agg
tmp=$(mktemp -d)
cleanup() {
  for wt in "$tmp"/*/; do [ -d "$wt" ] && git -C "$repo" worktree remove --force "$wt" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

mapfile -t commits < <(git -C "$repo" log --first-parent -n "$n" --format=%H HEAD -- "$@" | tac)
i=0
for commit in "${commits[@]}"; do
  i=$((i + 1))
  short=$(git -C "$repo" rev-parse --short "$commit")
  name=$(printf '%02d-%s' "$i" "$short")
  wt="$tmp/$short"
  git -C "$repo" worktree add --detach -q "$wt" "$commit"
  start=$SECONDS
  # The commit's own code first on sys.path (python -m puts the worktree there), so its plugin runs.
  (cd "$wt" && "$python" -m pytest "${law_args[@]}" -q --law-report "$out/$name.json") > "$out/$name.log" 2>&1 \
    && status=0 || status=$?
  if [ -f "$out/$name.json" ]; then
    echo "$name: pytest exit $status, $((SECONDS - start)) s, $(git -C "$repo" log -1 --format=%s "$commit" | cut -c1-70)"
  else
    echo "$name: no report written (pytest exit $status; see $out/$name.log): skipped"
  fi
  git -C "$repo" worktree remove --force "$wt"
done
echo "pytest-physlaw history $out/*.json -o history.png -o history.md"
