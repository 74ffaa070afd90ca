"""The answer type of a question naming several types: the one farthest from the named nodes."""

from __future__ import annotations

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from graphs.snapshot import Snapshot
from tools.plans.rule_planner import RulePlanner
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader

NODES = [
    ("d1", "drug", "Kregocillin", "an antibiotic"),
    ("g1", "gene", "KR1", "a kinase gene"),
    ("g2", "gene", "KR2", "a receptor gene"),
    ("x1", "disease", "Kappa syndrome", "a rare syndrome"),
    ("x2", "disease", "Lambda fever", "a fever"),
]
EDGES = [
    ("d1", "g1", "targets"),
    ("d1", "g2", "targets"),
    ("g1", "x1", "associated_with"),
    ("g2", "x2", "associated_with"),
]


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "bio", NODES, EDGES)


def test_schema_distance_counts_hops_between_types(graph: Snapshot) -> None:
    schema = SchemaPaths.from_signatures(graph.manifest.signatures)
    assert schema.distance("drug", "drug") == 0
    assert schema.distance("drug", "gene") == 1
    assert schema.distance("drug", "disease") == 2
    assert SchemaPaths.from_signatures([]).distance("drug", "gene") is None


def test_the_type_beyond_the_other_named_types_is_the_answer(graph: Snapshot) -> None:
    answers = RulePlanner(graph.manifest).answers
    question = "Kregocillin acts on some genes; what diseases are those genes associated with?"
    # genes lie on the way from the drug to the diseases, whichever the question names first
    assert answers.answer_type(question, ["drug"]) == "disease"
    assert answers.answer_type("Which diseases and genes does it touch?", ["drug"]) == "disease"
    # without named nodes to measure from, the one the wh-phrase names, else the first named
    assert answers.answer_type(question) == "disease"
    assert answers.answer_type("Kregocillin acts on genes linked to diseases.") == "gene"
    assert answers.answer_type("Is there anything?", ["drug"]) is None


def test_a_type_no_named_relation_leads_to_yields_to_the_relations_end(tmp_path) -> None:
    """ "clinical features" does not name HPO's type `clinical_course` by its word "clinical":
    written before another head word, "clinical" modifies it. The phrase "features of" (the
    phenotypes' texts say "a feature of <disease>") names `has_phenotype`, which never leads
    to a clinical course: the answers are phenotypes."""
    nodes = [
        ("rp", "disease", "Retinitis pigmentosa", "an eye disease"),
        ("ms", "disease", "Marfan syndrome", "a disorder of connective tissue"),
        ("prog", "clinical_course", "Progressive", "clinical course getting worse"),
        *(
            (f"p{i}", "phenotype", name, f"{name}, a feature of {disease}")
            for i, (name, disease) in enumerate(
                [
                    ("Nyctalopia", "Retinitis pigmentosa"),
                    ("Rod-cone dystrophy", "Retinitis pigmentosa"),
                    ("Arachnodactyly", "Marfan syndrome"),
                ]
            )
        ),
    ]
    edges = [
        ("rp", "p0", "has_phenotype"),
        ("rp", "p1", "has_phenotype"),
        ("ms", "p2", "has_phenotype"),
        ("rp", "prog", "has_course"),
        ("ms", "prog", "has_course"),
    ]
    snapshot = tiny_snapshot(tmp_path / "hpo", nodes, edges)
    assert snapshot.manifest.relation_phrases == {"has_phenotype": {"featur": "in"}}
    question = "List all clinical features of Retinitis pigmentosa."
    plan = plan_of(snapshot, question)
    # no type named: a relation named by a mined phrase alone sets no answer type, and the
    # walk along it reaches the phenotypes
    assert "clinical_course" not in plan.plan.target.labels
    assert [(hop.relations, hop.direction) for hop in plan.routes[0].hops] == [
        (("has_phenotype",), "out")
    ]
    # without the phrase: "clinical" modifies "feature", another head; it names no type
    named = "Name every clinical feature annotated to Retinitis pigmentosa."
    assert "clinical_course" not in plan_of(snapshot, named).plan.target.labels
    reader = QuestionReader.build("english", ["clinical_course", "phenotype"], ["has_course"])
    assert reader.mentioned_types("What is the clinical course of X?") == ["clinical_course"]
    assert reader.mentioned_types("the clinical features of X") == []
    # a word is judged by every place it is written: one not modifying another names the type
    sources = QuestionReader.build("english", ["source package", "binary package"], [])
    assert sources.mentioned_types("the source of bash, and its source files") == ["source package"]
    # a type the relation leads on to (a chain) stays the answer type
    answers = RulePlanner(snapshot.manifest).answers
    assert answers.reaches(["disease"], ["has_phenotype"], "phenotype")
    assert not answers.reaches(["disease"], ["has_phenotype"], "clinical_course")


def test_a_word_several_types_share_is_not_half_of_a_relation_label(tmp_path) -> None:
    """WordNet names fifteen types `verb.*` and a relation `verb_group`: "which verb..." says
    what kind of word the answer is, not a walk along `verb_group` (half its label); the
    whole label still names it."""
    nodes = [
        ("dbl", "verb.motion", "double over", "bend over or curl up, with laughter or pain"),
        ("cup", "verb.motion", "curl up", "shape one's body into a curl"),
        ("ctw", "verb.motion", "curl (twist)", "form a curl, curls, or ringlets"),
        ("cwd", "verb.change", "curl (wind)", "wind around something"),
        ("lau", "verb.body", "laugh", "produce laughter"),
        ("pai", "noun.state", "pain", "a symptom of some physical hurt or disorder"),
        ("gig", "noun.act", "giggle", "a foolish nervous laugh"),
    ]
    edges = [
        ("ctw", "cup", "verb_group"),
        ("cwd", "cup", "verb_group"),
        ("gig", "lau", "derivation"),
        ("lau", "pai", "also_see"),
    ]
    graph = tiny_snapshot(tmp_path / "lexical", nodes, edges)
    question = "verb for bending over or curling up, typically from laughing or being in pain"
    assert "verb_group" not in plan_of(graph, question).relations
    assert ask(graph, question)[0] == "dbl"
    assert "verb_group" in plan_of(graph, "Which verbs share a verb group with curl up?").relations


def test_a_type_word_the_first_hits_write_before_another_word_names_no_type(tmp_path) -> None:
    """The pair "source control" is how gource's own text writes it: "source" modifies
    "control" and names neither the type `source` nor a relation; the search's answer
    stands. "source package" (another type's word) and "binary packages" (the type word
    last) still name their types."""
    nodes = [
        ("gource", "package", "gource", "graphical source control visualisation"),
        ("hgview", "package", "hgview", "mercurial repository browser"),
        ("draw", "package", "drawing", "simple drawing program"),
        ("xdraw", "package", "xdrawer", "draw pictures in x11"),
        ("gfx", "section", "graphics", "the archive section graphics"),
        ("s1", "source", "history-control (source package)", "the source package history-control"),
        ("hc", "package", "history-control", "form history control for browsers"),
        ("s2", "source", "drawing (source package)", "the source package drawing"),
    ]
    edges = [
        ("draw", "gfx", "in_section"),
        ("xdraw", "gfx", "in_section"),
        ("hc", "gfx", "in_section"),
        ("hc", "s1", "built_from"),
        ("draw", "s2", "built_from"),
        ("xdraw", "s2", "built_from"),
    ]
    archive = tiny_snapshot(tmp_path / "archive", nodes, edges)
    reader = RulePlanner(archive.manifest).reader
    texts = ["graphical source control visualisation", "the source package drawing"]
    question = "What draws a graphical visualisation of a source control repository history?"
    at = question.index("source")
    assert reader.compound_type_words(question, texts) == [(at, at + len("source"))]
    assert reader.compound_type_words("Which source package builds drawing?", texts) == []
    assert reader.compound_type_words("the binary packages of drawing", ["binary packages"]) == []
    # each text on its own: the end of one and the start of the next are no pair
    assert reader.compound_type_words(question, ["graphical source", "control tool"]) == []
    # written as one phrase: not across a name blanked out of the question
    assert reader.compound_type_words("source      control", texts) == []
    plan = plan_of(archive, question)
    assert "source" in plan.plan.target.relevance_text.split()  # a word of the question still
    assert "source" not in plan_of(archive, question).plan.target.labels
    assert ask(archive, question)[0] == "gource"
    assert plan_of(archive, "Which source package builds drawing?").plan.target.labels == ["source"]


def test_a_function_word_alone_is_not_half_of_a_relation_label(tmp_path) -> None:
    """Debian's `built_from` joins "built" to "from" (tools/plans/function_words.py): "from"
    in "commands from a file" names no relation, and the package the question describes
    answers it; the whole label still names `built_from`."""
    nodes = [
        ("xjobs", "package", "xjobs", "run commands read from a list in parallel"),
        ("file", "package", "file", "determines the type of a file"),
        ("parallel", "package", "parallel", "run programs in parallel"),
        ("sfile", "source", "file", "the source package file"),
        ("spar", "source", "moreutils", "the source package moreutils"),
    ]
    edges = [("file", "sfile", "built_from"), ("parallel", "spar", "built_from")]
    graph = tiny_snapshot(tmp_path / "archive", nodes, edges)
    question = "read a list of commands from a file and run them in parallel"
    assert "built_from" not in plan_of(graph, question).relations
    assert ask(graph, question)[0] == "xjobs"
    named = plan_of(graph, "Which packages are built from moreutils?").relations
    assert "built_from" in named


def test_a_function_word_names_the_label_it_tells_from_its_sibling() -> None:
    """`located_above` and `located_below` share "located": "above" is what tells them
    apart, so it names one; "from" tells `built_from` from no other label."""
    reader = QuestionReader.build(
        "english", ["organ", "package"], ["located_above", "located_below", "built_from"]
    )
    assert reader.label_matches("Which organ lies above the liver?").named(0.5) == ["located_above"]
    assert reader.label_matches("commands read from a file").named(0.5) == []


def test_the_type_written_after_same_is_shared_not_asked_for(tmp_path) -> None:
    """ "that same gene": the answers share it with the named disease, across `gene_of`
    and back; a question naming no other type asks for the named node's own."""
    nodes = [
        ("u1f", "disease", "Usher syndrome 1F", "deafness and blindness"),
        ("u1d", "disease", "Usher syndrome 1D", "deafness and blindness from birth"),
        ("dfn", "disease", "Deafness 23", "hearing loss"),
        ("pcdh", "gene", "PCDH15", "protocadherin 15"),
        ("cdh", "gene", "CDH23", "cadherin 23"),
    ]
    edges = [
        ("pcdh", "u1f", "gene_of"),
        ("pcdh", "dfn", "gene_of"),
        ("cdh", "u1d", "gene_of"),
    ]
    graph = tiny_snapshot(tmp_path / "bio", nodes, edges)
    question = "Usher syndrome 1F is caused by one gene. What other disorders are caused by "
    question += "that same gene?"
    reader = RulePlanner(graph.manifest).reader
    shared, rest = reader.shared_types(question)
    assert shared == ["gene"] and rest.count("gene") == 1
    plan = plan_of(graph, question)
    assert plan.answer_type == "disease"
    assert [hop.node_type for hop in plan.routes[0].hops] == ["gene", "disease"]
    assert ask(graph, question)[0] == "dfn"  # not the gene itself
    # no type after "same": nothing is shared
    assert reader.shared_types("Which genes cause it at the same time?")[0] == []


def test_of_several_named_types_the_wh_phrase_names_the_answers(graph: Snapshot) -> None:
    answers = RulePlanner(graph.manifest).answers
    question = "Drugs act on the genes behind Kappa syndrome. Which genes are those?"
    # the drug is farther from the disease, but the question asks for genes
    assert answers.answer_type(question, ["disease"], ["associated_with"]) == "gene"
    assert answers.reader.asked_type("Which other genes cause it?") == "gene"
    assert answers.reader.asked_type("What is the drug for it?") == "drug"
    assert answers.reader.asked_type("What does Kappa syndrome follow?") is None
    assert ask(graph, question)[0] == "g1"


def test_a_participle_before_by_names_the_agents_type_not_the_answers() -> None:
    reader = QuestionReader.build("english", ["package", "maintainer"], ["maintained_by"])
    assert reader.mentioned_types("enhancements for musescore maintained by Thorsten") == []
    assert reader.mentioned_types("Who maintains the packages of X?") == ["maintainer", "package"]
    assert reader.mentioned_types("Which maintainer is it?") == ["maintainer"]


def test_a_relative_which_or_a_mark_between_asks_for_no_type(graph: Snapshot) -> None:
    reader = RulePlanner(graph.manifest).reader
    relative = "List the diseases which genes targeted by Kregocillin are associated with."
    assert reader.asked_type(relative) is None
    assert reader.asked_type("Which? Genes and diseases.") is None
    assert reader.asked_type("In which gene is it?") == "gene"


def test_a_phrase_written_about_a_type_starts_its_relation_there(tmp_path) -> None:
    """ "the features of the diseases that RPGR causes": the phrase "features of" is about
    the type `disease`, the one the question names; the answers lie at the relation's other
    end (phenotypes), the diseases on the way."""
    nodes = [
        ("rpgr", "gene", "RPGR", "retinitis pigmentosa GTPase regulator"),
        ("rp", "disease", "Retinitis pigmentosa", "an eye disease"),
        ("ms", "disease", "Marfan syndrome", "a disorder of connective tissue"),
        ("p0", "phenotype", "Nyctalopia", "Nyctalopia, a feature of Retinitis pigmentosa"),
        ("p1", "phenotype", "Rod-cone dystrophy", "a feature of Retinitis pigmentosa"),
        ("p2", "phenotype", "Arachnodactyly", "Arachnodactyly, a feature of Marfan syndrome"),
    ]
    edges = [
        ("rpgr", "rp", "gene_of"),
        ("rp", "p0", "has_phenotype"),
        ("rp", "p1", "has_phenotype"),
        ("ms", "p2", "has_phenotype"),
    ]
    snapshot = tiny_snapshot(tmp_path / "hpo", nodes, edges)
    question = "List the features of the diseases that RPGR mutations cause."
    plan = plan_of(snapshot, question)
    assert plan.plan.target.labels == ["phenotype"]
    assert [hop.node_type for hop in plan.routes[0].hops] == ["disease", "phenotype"]
    assert plan.routes[0].hops[1].relations == ("has_phenotype",)
    assert sorted(ask(snapshot, question)[:2]) == ["p0", "p1"]
    # the phrase written about a name asks for that name's neighbours
    assert ask(snapshot, "List the features of Marfan syndrome.")[0] == "p2"
