#!/bin/bash
# usage: enospc.sh REPO_DIR : `ark eval` (rules, 3 agents, 24 questions) into a 256 KiB tmpfs
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$1; cd $REPO
PY=${PY:-$HERE/../../../.venv/bin/python}
SNAP=/tmp/cli-work/snaproot/snap; QA=$SNAP/qa/test.jsonl
SMALL=/tmp/cli-work/small; rm -rf $SMALL/*
ARK() { PYTHONPATH=$REPO $PY -c 'import sys; sys.argv[0]="ark"; from cli.app import main; main()' "$@"; }
ARK eval $SNAP --qa $QA --out $SMALL/run --agents 3 -m rules --concurrency 1 > /tmp/cli-work/e.out 2>/tmp/cli-work/e.err
echo "exit $?; stderr lines $(wc -l < /tmp/cli-work/e.err); traceback: $(grep -c Traceback /tmp/cli-work/e.err)"
tail -c 400 /tmp/cli-work/e.err; echo
F=$SMALL/run/results.jsonl
echo "results.jsonl: $(wc -c < $F) bytes, $(tr -cd '\n' < $F | wc -c) newlines, ends with newline: $(tail -c1 $F | od -An -c | tr -d ' ')"
$PY -c "
import json
ok=bad=0
for l in open('$F','rb').read().split(b'\n'):
    if not l: continue
    try: json.loads(l); ok+=1
    except Exception: bad+=1
print(f'parseable lines {ok}, unparseable {bad}')"
# free space: move the run to a roomy place and resume there
rm -rf /tmp/cli-work/freed; cp -r $SMALL/run /tmp/cli-work/freed
ARK eval $SNAP --qa $QA --out /tmp/cli-work/freed --agents 3 -m rules --concurrency 1 --resume --json > /tmp/cli-work/r.out 2>/tmp/cli-work/r.err
echo "resume exit $?; $(python3 -c "import json; d=json.load(open('/tmp/cli-work/r.out')); print('questions', d['questions'], 'session', d['session'])" 2>&1)"
echo "after resume: lines $(wc -l < /tmp/cli-work/freed/results.jsonl), unique $($PY -c "import json; print(len({json.loads(l)['question_id'] for l in open('/tmp/cli-work/freed/results.jsonl')}))")"
