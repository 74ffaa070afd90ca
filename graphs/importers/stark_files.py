"""Read STaRK's processed SKB files (node_info.pkl, edge_index.pt, ...) into arrays and dicts.

The format is what `save_files` in snap-stanford/stark (`stark_qa/tools/io.py`) writes: dicts
as `<name>.pkl` (`node_info`, `node_type_dict`, `edge_type_dict`) and tensors as `<name>.pt`
(`edge_index` [2, E], `edge_types` [E], `node_types` [N]). MAG's type dictionaries are not
files: `MagSKB` hard-codes them (`stark_qa/skb/mag.py`) and overrides any file, and so does this
module. Amazon's full graph (products plus the brand, category and color nodes that
`AmazonSKB.post_process` adds) lies in `processed/cache/brand-category-color/`; a product-only
`processed/` is read too, every node a product, as `AmazonSKB._process_raw` does.

Pickles run code when loaded: only files under the root the user names are unpickled, never
anything downloaded. Tensors are read with `torch.load(weights_only=True)`; torch comes with the
optional `distill` extra and is imported only here, when needed.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from graphs.errors import GraphImportError
from graphs.importers.stark_text import STARK_DATASETS

logger = logging.getLogger(__name__)

MAG_NODE_TYPES = MappingProxyType({0: "author", 1: "institution", 2: "field_of_study", 3: "paper"})
MAG_RELATIONS = MappingProxyType(
    {
        0: "author___affiliated_with___institution",
        1: "paper___cites___paper",
        2: "paper___has_topic___field_of_study",
        3: "author___writes___paper",
    }
)
AMAZON_CACHE = "brand-category-color"
_TORCH_HINT = (
    "reading STaRK .pt files needs torch: pip install 'ark-kg[distill]' (or install torch)"
)


@dataclass(frozen=True)
class StarkFiles:
    """The arrays and dictionaries of one processed STaRK SKB, read from disk.

    Attributes:
        directory: the directory the files were read from.
        node_info: node index -> attribute dict.
        edge_index: int64 [2, E], row 0 the source, row 1 the target.
        edge_types: int64 [E] relation codes.
        node_types: int64 [N] node type codes.
        node_type_dict: type code -> name.
        edge_type_dict: relation code -> name.
        sources: the files read.
    """

    directory: Path
    node_info: Mapping[Any, Mapping[str, Any]]
    edge_index: np.ndarray
    edge_types: np.ndarray
    node_types: np.ndarray
    node_type_dict: Mapping[int, str]
    edge_type_dict: Mapping[int, str]
    sources: list[str] = field(default_factory=list)


def find_processed_dir(root: str | Path, dataset: str) -> Path:
    """The directory holding `node_info.pkl` for `dataset` under `root`.

    Raises:
        GraphImportError: the dataset is unknown or no candidate directory holds the files.
    """
    check_dataset(dataset)
    base = Path(root)
    if not base.is_dir():
        raise GraphImportError(f"--root {base} is not a directory", file=str(base))
    roots = [base, base / dataset] if base.name != dataset else [base]
    candidates: list[Path] = []
    for place in roots:
        if dataset == "amazon":
            candidates += [
                place / "processed" / "cache" / AMAZON_CACHE,
                place / "cache" / AMAZON_CACHE,
            ]
        candidates += [place / "processed", place]
    for candidate in candidates:
        if (candidate / "node_info.pkl").is_file():
            return candidate
    looked = ", ".join(str(candidate) for candidate in candidates)
    raise GraphImportError(
        f"no node_info.pkl for STaRK {dataset}; looked in {looked}. Point --root at the "
        f"directory that holds processed/ (unzip STaRK's skb/{dataset}/processed.zip there)",
        file=str(base),
    )


def load_stark_files(root: str | Path, dataset: str) -> StarkFiles:
    """Read the processed files of one STaRK SKB.

    Raises:
        GraphImportError: a required file is missing, unreadable or of the wrong shape.
    """
    directory = find_processed_dir(root, dataset)
    sources: list[str] = []

    def read(name: str) -> Any:
        path = directory / name
        sources.append(str(path))
        return _load_tensor(path) if name.endswith(".pt") else _load_pickle(path)

    node_info = _require_mapping(read("node_info.pkl"), directory / "node_info.pkl")
    edge_index = _int_array(read("edge_index.pt"), directory / "edge_index.pt", ndim=2)
    edge_types = _int_array(read("edge_types.pt"), directory / "edge_types.pt", ndim=1)
    if dataset == "mag":
        node_type_dict: Mapping[int, str] = MAG_NODE_TYPES
        edge_type_dict: Mapping[int, str] = MAG_RELATIONS
        for name in ("node_type_dict.pkl", "edge_type_dict.pkl"):
            if (directory / name).is_file():
                logger.warning("%s ignored: MagSKB hard-codes MAG's type names", directory / name)
    else:
        edge_type_dict = _type_dict(read("edge_type_dict.pkl"), directory / "edge_type_dict.pkl")
        node_type_dict = MappingProxyType({0: "product"})
        if dataset == "prime" or (directory / "node_type_dict.pkl").is_file():
            path = directory / "node_type_dict.pkl"
            node_type_dict = _type_dict(read("node_type_dict.pkl"), path)
    if dataset == "amazon" and not (directory / "node_types.pt").is_file():
        node_types = np.zeros(len(node_info), dtype=np.int64)
    else:
        node_types = _int_array(read("node_types.pt"), directory / "node_types.pt", ndim=1)
    files = StarkFiles(
        directory,
        node_info,
        edge_index,
        edge_types,
        node_types,
        node_type_dict,
        edge_type_dict,
        sources,
    )
    _check_shapes(files)
    return files


def check_dataset(dataset: str) -> None:
    """Raise a GraphImportError unless `dataset` is one of STaRK's three SKBs."""
    if dataset not in STARK_DATASETS:
        raise GraphImportError(
            f"unknown STaRK dataset {dataset!r}; choose one of {', '.join(STARK_DATASETS)}"
        )


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as error:
        raise GraphImportError(_TORCH_HINT) from error
    return torch


def _load_tensor(path: Path) -> np.ndarray:
    if not path.is_file():
        raise GraphImportError("file is missing from the STaRK directory", file=str(path))
    torch = _import_torch()
    try:
        value = torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, EOFError, OSError, ValueError) as error:
        raise GraphImportError(
            f"not a readable torch tensor file ({error})", file=str(path)
        ) from error
    if not isinstance(value, torch.Tensor):
        raise GraphImportError(f"expected a tensor, found {type(value).__name__}", file=str(path))
    return np.asarray(value.detach().cpu().numpy())


def _load_pickle(path: Path) -> Any:
    if not path.is_file():
        raise GraphImportError("file is missing from the STaRK directory", file=str(path))
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError) as error:
        raise GraphImportError(f"not a readable pickle ({error})", file=str(path)) from error


def _require_mapping(value: Any, path: Path) -> Mapping[Any, Mapping[str, Any]]:
    if not isinstance(value, Mapping):
        raise GraphImportError(
            f"expected a dict of node index -> attributes, found {type(value).__name__}",
            file=str(path),
        )
    return value


def _type_dict(value: Any, path: Path) -> Mapping[int, str]:
    if not isinstance(value, Mapping) or not value:
        raise GraphImportError("expected a non-empty dict of type code -> name", file=str(path))
    result: dict[int, str] = {}
    for code, name in value.items():
        if not isinstance(name, str) or not name or isinstance(code, bool):
            raise GraphImportError(
                f"bad entry {code!r}: {name!r}; need int -> name", file=str(path)
            )
        try:
            result[int(code)] = name
        except (TypeError, ValueError) as error:
            raise GraphImportError(
                f"type code {code!r} is not an integer", file=str(path)
            ) from error
    return MappingProxyType(result)


def _int_array(value: np.ndarray, path: Path, *, ndim: int) -> np.ndarray:
    if value.ndim != ndim or (ndim == 2 and value.shape[0] != 2):
        want = "[2, num_edges]" if ndim == 2 else "one dimension"
        raise GraphImportError(
            f"tensor has shape {list(value.shape)}, expected {want}", file=str(path)
        )
    if not np.issubdtype(value.dtype, np.integer) and not np.array_equal(value, np.round(value)):
        raise GraphImportError(f"tensor of {value.dtype} holds non-integers", file=str(path))
    return value.astype(np.int64, copy=False)


def _check_shapes(files: StarkFiles) -> None:
    directory = files.directory
    num_edges = files.edge_index.shape[1]
    if len(files.edge_types) != num_edges:
        raise GraphImportError(
            f"{len(files.edge_types)} edge types for {num_edges} edges in edge_index.pt",
            file=str(directory / "edge_types.pt"),
        )
    num_nodes = len(files.node_types)
    if len(files.node_info) != num_nodes:
        raise GraphImportError(
            f"node_info has {len(files.node_info)} records but node_types.pt has {num_nodes} "
            "nodes; the files come from different STaRK versions or caches",
            file=str(directory / "node_info.pkl"),
        )
    missing = next((index for index in range(num_nodes) if index not in files.node_info), None)
    if missing is not None:
        raise GraphImportError(
            f"no record for node index {missing}; node_info keys must be 0..{num_nodes - 1}",
            file=str(directory / "node_info.pkl"),
            row=missing + 1,
        )
