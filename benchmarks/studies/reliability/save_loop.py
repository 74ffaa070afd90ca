"""One `ark ask --save` loop: N answers saved into a run directory (for race_saves.sh)."""

import asyncio
import sys
from pathlib import Path

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.trajectory import new_question_id
from evals.answers.log import answer_run_config, save_answer
from graphs.snapshot import Snapshot

snapshot, run_dir, tag, n = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
config = AgentConfig(model="rules", n_agents=1)
agent = make_agent(Snapshot.open(snapshot), config)
run_config = answer_run_config(config.to_record(), snapshot)
errors = 0
for i in range(n):
    result = asyncio.run(agent.ask(f"blender {tag} {i}", question_id=new_question_id(tag)))
    try:
        save_answer(run_dir, result, run_config)
    except Exception as e:
        errors += 1
        print(f"{tag} {i}: {type(e).__name__}: {e}", file=sys.stderr)
print(f"{tag}: {errors} save errors", file=sys.stderr)
