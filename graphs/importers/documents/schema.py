"""The document graph's schema, one copy: its node types and its structural relations.

The importer writes it (assemble.py: document -has_passage-> passage, entity -mentioned_in->
passage, and one `fact` node per triple with fact -stated_in-> passage, -has_subject-> and
-has_object-> entity, its relation label in the `label` column); answer/ reads it back (the
facts of the retrieved passages, SARG's G_D). Extracted relations never take these names
(vocabulary.py renames a clash).
"""

from __future__ import annotations

DOCUMENT, PASSAGE, FACT = "document", "passage", "fact"
"""Node types of the structure (entities carry their own types)."""
HAS_PASSAGE = "has_passage"
MENTIONED_IN = "mentioned_in"
STATED_IN = "stated_in"
HAS_SUBJECT = "has_subject"
HAS_OBJECT = "has_object"
FACT_RELATIONS = (STATED_IN, HAS_SUBJECT, HAS_OBJECT)
"""The relations that tie a fact to its passage and its two entities."""
STRUCTURAL = frozenset({HAS_PASSAGE, MENTIONED_IN, *FACT_RELATIONS})
"""Every relation of the structure: an extracted relation may not take one of these names."""
FACT_LABEL = "label"
"""The node column holding a fact's relation label."""
