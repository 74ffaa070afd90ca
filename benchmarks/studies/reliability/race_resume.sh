#!/bin/bash
# usage: race_resume.sh REPO_DIR : two concurrent `ark eval --resume` on one run directory
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$1
PY=${PY:-$HERE/../../../.venv/bin/python}
cd $REPO
SNAP=/tmp/cli-work/snaproot/snap; QA=$SNAP/qa/test.jsonl
OUT=/tmp/cli-work/resume-run; rm -rf $OUT
ARK="$PY -c 'import sys; sys.argv[0]=\"ark\"; from cli.app import main; main()'"
PYTHONPATH=$REPO $PY -c 'import sys; sys.argv[0]="ark"; from cli.app import main; main()' eval $SNAP --qa $QA --out $OUT --limit 2 --agents 3 -m rules --json >/dev/null
for p in 1 2; do
  PYTHONPATH=$REPO $PY -c 'import sys; sys.argv[0]="ark"; from cli.app import main; main()' eval $SNAP --qa $QA --out $OUT --agents 3 -m rules --concurrency 1 --resume --json > /tmp/cli-work/r$p.out 2>/tmp/cli-work/r$p.err &
done
wait
total=$(wc -l < $QA)
lines=$(wc -l < $OUT/results.jsonl)
uniq=$($PY -c "import json,sys; print(len({json.loads(l)['question_id'] for l in open('$OUT/results.jsonl')}))")
echo "questions $total; results.jsonl lines $lines; unique ids $uniq; duplicates $((lines-uniq))"
for p in 1 2; do echo "proc $p: $(tail -c 300 /tmp/cli-work/r$p.err | tr '\n' ' ')"; done
