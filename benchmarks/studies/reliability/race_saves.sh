#!/bin/bash
# usage: race_saves.sh REPO_DIR TRIALS N
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$1; TRIALS=$2; N=$3
cd $REPO
PY=${PY:-$HERE/../../../.venv/bin/python}
rm -rf /tmp/cli-work/snaproot; mkdir -p /tmp/cli-work/snaproot
$PY -c "import sys; sys.path.insert(0,'.'); from tests.evals.eval_graph import build_tiny; from pathlib import Path; build_tiny(Path('/tmp/cli-work/snaproot'))" 2>/dev/null
SNAP=/tmp/cli-work/snaproot/snap
lost_total=0
for t in $(seq $TRIALS); do
  OUT=/tmp/cli-work/saved-$t; rm -rf $OUT
  PYTHONPATH=$REPO $PY $HERE/save_loop.py $SNAP $OUT a $N 2>/tmp/cli-work/a.err &
  PYTHONPATH=$REPO $PY $HERE/save_loop.py $SNAP $OUT b $N 2>/tmp/cli-work/b.err &
  wait
  got=$(cat $OUT/results.jsonl 2>/dev/null | wc -l)
  echo "trial $t: $got of $((2*N)) saved; $(tail -1 /tmp/cli-work/a.err); $(tail -1 /tmp/cli-work/b.err)"
  grep -h "Error" /tmp/cli-work/a.err /tmp/cli-work/b.err | head -2
done
