"""Could an encoder name the relation a question means? MiniLM over a graph's relation labels.

For each one-hop development question of a graph (its spec names the relation the gold
answers lie along), rank the graph's relation labels (underscores as spaces) by the cosine
of the question with each label under all-MiniLM-L6-v2 (the `dense` extra's encoder, or
`--encoder DIR`) and count the questions whose relation ranks first, beside those whose
relation the label's words already name (the planner's `label_matches`) and those only the
encoder finds. The issue allows relation preferences "by similarity ... the MiniLM encoder
over labels"; this measures whether that would name the relations word matching cannot
(WordNet's `antonym` for "opposite", `hypernym` for "a type of").

    .venv/bin/python -m benchmarks.studies.relation_labels_encoder \\
        --questions benchmarks/datasets/wordnet/dev.jsonl --graph /tmp/pf7/wordnet
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from answer.encoding import EncoderSetupError, load_encoder
from graphs.errors import SnapshotError
from graphs.snapshot import Snapshot
from tools.plans.anchors import MIN_LABEL_MATCH
from tools.plans.vocabulary import QuestionReader


def main() -> None:
    """Print, per relation, how often it ranks first for the questions asking for it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--graph", type=Path, required=True, help="the graph's snapshot")
    parser.add_argument("--encoder", type=Path, default=None)
    args = parser.parse_args()
    try:
        manifest = Snapshot.open(args.graph).manifest
        encoder = load_encoder(args.encoder)
    except (SnapshotError, EncoderSetupError) as error:
        raise SystemExit(str(error)) from error
    labels = sorted(manifest.relations)
    reader = QuestionReader.build(manifest.analyzer, manifest.node_types, manifest.relations)
    label_vectors = encoder.encode([label.replace("_", " ") for label in labels])
    rows = [json.loads(line) for line in args.questions.read_text().splitlines()]
    asked = [row for row in rows if row["family"] == "one_hop"]
    vectors = encoder.encode([row["query"] for row in asked])
    first, named, only, total = Counter(), Counter(), Counter(), Counter()
    for row, vector in zip(asked, vectors, strict=True):
        gold = row["spec"]["rel"]
        best = labels[int(np.argmax(label_vectors @ vector))]
        by_words = reader.label_matches(row["query"]).named(MIN_LABEL_MATCH) == [gold]
        total[gold] += 1
        first[gold] += best == gold
        named[gold] += by_words
        only[gold] += best == gold and not by_words
    print("| relation | questions | encoder first | label's words name it | encoder only |")
    print("|---|---|---|---|---|")
    for relation in sorted(total):
        counts = (total[relation], first[relation], named[relation], only[relation])
        print(f"| {relation} | " + " | ".join(map(str, counts)) + " |")
    sums = (sum(total.values()), sum(first.values()), sum(named.values()), sum(only.values()))
    print("| all | " + " | ".join(map(str, sums)) + " |")


if __name__ == "__main__":
    main()
