"""SARG's flags, declared once (SargFlags) for `ark answer` and `ark eval answers`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from answer.config import SargConfig
from cli.flags.groups import flag_group
from cli.flags.local_models import SpacyModelOpt

_PAPER = SargConfig()

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "-m",
        "--model",
        help="Generator: hf:PATH (a model dir or .gguf), openai:NAME or a served NAME; "
        "omitted: answer offline from the best chain.",
    ),
]
RetrieverOpt = Annotated[
    str, typer.Option("--retriever", help="bm25 | agents | dense (needs `ark graph embed`).")
]
RetrievalOpt = Annotated[
    str,
    typer.Option(
        "--retrieval",
        help="search (the whole snapshot) | gold (`ark eval answers`: only the passages each "
        'QA row names in "supporting" / "context", as the paper evaluates).',
    ),
]
ExtractionOpt = Annotated[
    str,
    typer.Option(
        "--extraction",
        help="auto (per-query with -m on a document snapshot) | per-query (the model extracts "
        "each question's passages, cached) | snapshot (the stored facts / KG edges).",
    ),
]
SchemaOpt = Annotated[
    str,
    typer.Option(
        "--schema",
        help="Per-query extraction: reasoning (the paper's cause-relation-effect) | entity "
        "(generic subject-predicate-object, the ablation).",
    ),
]
StructuredOpt = Annotated[
    str,
    typer.Option(
        "--structured",
        help="Per-query extraction's JSON: auto (the schema enforced by the server where it "
        "takes response_format, else the prompt) | schema | prompt | tools (a tool call).",
    ),
]
PassagesOpt = Annotated[
    int, typer.Option("--passages", min=1, help="Passages / nodes retrieved (paper: 10–50).")
]
MethodOpt = Annotated[
    str,
    typer.Option(
        "--method", help="sarg | direct | rag | cot-rag | flat-chains (baselines, ablation)."
    ),
]
DirectionOpt = Annotated[
    str,
    typer.Option(
        "--direction",
        help="rule | learned (the trained head, see --direction-head) | llm | forward | "
        "backward | bidirectional (blind ablation).",
    ),
]
DirectionHeadOpt = Annotated[
    Path | None,
    typer.Option(
        "--direction-head",
        help="Head for --direction learned (`ark distill direction-head`; default: shipped).",
    ),
]
TauOpt = Annotated[float, typer.Option("--tau", help="Entry-node cosine threshold (Eq. 3).")]
BeamOpt = Annotated[int, typer.Option("--beam-width", min=1, help="β (paper: 3).")]
TopKOpt = Annotated[int, typer.Option("--top-k", min=1, help="Chains given to the model, K.")]
DepthOpt = Annotated[int, typer.Option("--max-depth", min=1, help="Hops per chain at most.")]
NeighborsOpt = Annotated[
    int, typer.Option("--max-neighbors", min=0, help="Neighbours per retrieved KG node.")
]
EncoderOpt = Annotated[
    Path | None,
    typer.Option("--encoder", help="Sentence-transformers dir (default all-MiniLM-L6-v2)."),
]
AgentModelOpt = Annotated[
    str, typer.Option("--agent-model", help="Model of ARK's agents for --retriever agents.")
]
MaxTokensOpt = Annotated[int, typer.Option("--max-tokens", min=1, help="Generator token cap.")]


@flag_group
@dataclass(frozen=True, kw_only=True)
class SargFlags:
    """SARG's flags (paper defaults), declared once for `ark answer` and `ark eval answers`."""

    model: ModelOpt = None
    retriever: RetrieverOpt = _PAPER.retriever
    retrieval: RetrievalOpt = _PAPER.retrieval
    extraction: ExtractionOpt = _PAPER.extraction
    schema: SchemaOpt = _PAPER.schema
    structured: StructuredOpt = _PAPER.structured
    passages: PassagesOpt = _PAPER.passages
    method: MethodOpt = _PAPER.method
    direction: DirectionOpt = _PAPER.direction
    direction_head: DirectionHeadOpt = None
    tau: TauOpt = _PAPER.tau
    beam_width: BeamOpt = _PAPER.beam_width
    top_k: TopKOpt = _PAPER.top_k
    max_depth: DepthOpt = _PAPER.max_depth
    max_neighbors: NeighborsOpt = _PAPER.max_neighbors
    max_tokens: MaxTokensOpt = _PAPER.max_tokens
    encoder: EncoderOpt = None
    spacy_model: SpacyModelOpt = None
    agent_model: AgentModelOpt = "rules"

    def config(self) -> SargConfig:
        """The SargConfig these flags ask for (the only place the CLI maps them).

        Raises:
            ConfigError: a value SargConfig does not allow (the message lists the choices).
        """
        # The flags are plain strings; SargConfig checks each against its choices.
        settings: dict[str, Any] = {
            name: getattr(self, name)
            for name in ("method", "retriever", "retrieval", "extraction", "schema", "structured",
                         "passages", "direction", "tau", "beam_width", "top_k", "max_depth",
                         "max_neighbors", "max_tokens")
        }  # fmt: skip
        head = self.direction_head
        return SargConfig(**settings, direction_head=str(head.resolve()) if head else None)
