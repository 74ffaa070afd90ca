"""The Python standard library's public API, parsed with ``ast``: the pystdlib graph's source.

Modules, classes, exceptions, functions and methods, and the edges between them, from the
stdlib source files under a root (never imported); the node names and texts the graph gives
them. The module doc of benchmarks/datasets/pystdlib.py describes the graph.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import platform
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

TEXT_CHARS = 600
"""The most characters of docstring a node's text keeps."""
SIGNATURE_CHARS = 160
TYPES = ["module", "class", "exception", "function", "method"]
PREFIX = {"module": "mod", "class": "cls", "exception": "exc", "function": "fn", "method": "meth"}
SKIPPED_DIRS = {"site-packages", "test", "tests", "idle_test", "__pycache__"}

Scoped = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
Target = tuple[str, str, str]
"""A resolved name: ("class", module, name), ("module", module, "") or ("builtin", "", name)."""


@dataclass
class Module:
    """The names one parsed source file binds at module level."""

    name: str
    path: Path
    tree: ast.Module
    is_package: bool
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Local name -> (module, name) of ``from module import name``; "" names a module."""
    stars: list[str] = field(default_factory=list)

    @property
    def public(self) -> bool:
        """Whether the module is public: no dotted part starts with an underscore."""
        return not any(part.startswith("_") for part in self.name.split("."))


def stdlib_files(root: Path) -> Iterator[tuple[str, Path]]:
    """(dotted module name, path) of every non-test source file of the stdlib at `root`."""
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if SKIPPED_DIRS & set(parts[:-1]) or not all(p.isidentifier() for p in parts):
            continue
        if not all(
            (root.joinpath(*parts[:i]) / "__init__.py").exists() for i in range(1, len(parts))
        ):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and parts[-1] != "__main__":
            yield ".".join(parts), path


def parse_module(name: str, path: Path) -> Module:
    """The module-level classes, functions, aliases and imports of one source file."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    module = Module(name, path, tree, path.name == "__init__.py")
    for node in _top_level(tree.body):
        if isinstance(node, ast.ClassDef):
            module.classes.setdefault(node.name, node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.functions.setdefault(node.name, node)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name | ast.Attribute):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    module.aliases.setdefault(target.id, node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imported[alias.asname] = (alias.name, "")
                else:
                    head = alias.name.split(".")[0]
                    module.imported.setdefault(head, (head, ""))
        elif isinstance(node, ast.ImportFrom):
            source = absolute_import(module, node)
            for alias in node.names:
                if alias.name == "*":
                    module.stars.append(source)
                else:
                    module.imported[alias.asname or alias.name] = (source, alias.name)
    return module


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of `body` and of the if/try blocks in it (not of defs or loops)."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _top_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            handlers = [stmt for handler in node.handlers for stmt in handler.body]
            yield from _top_level(node.body + handlers + node.orelse + node.finalbody)


def absolute_import(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module name a ``from ... import`` statement reads from."""
    if not node.level:
        return node.module or ""
    package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


class Resolver:
    """Resolves the names and dotted expressions of a module to stdlib classes and modules."""

    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self._exception: dict[tuple[str, str], bool] = {}

    def lookup(self, module: str, name: str, seen: frozenset = frozenset()) -> Target | None:
        """What `name` means at the top level of `module` (None: unknown or outside)."""
        if (module, name) in seen or module not in self.modules:
            return None
        seen = seen | {(module, name)}
        info = self.modules[module]
        if name in info.classes:
            return ("class", module, name)
        if name in info.aliases:
            return self.resolve(module, info.aliases[name], seen)
        if name in info.imported:
            source, original = info.imported[name]
            if not original:
                return ("module", source, "") if source in self.modules else None
            if f"{source}.{original}" in self.modules:
                return ("module", f"{source}.{original}", "")
            return self.lookup(source, original, seen) or _builtin(original)
        for star in info.stars:
            if found := self.lookup(star, name, seen):
                return found
        if f"{module}.{name}" in self.modules:
            return ("module", f"{module}.{name}", "")
        return None

    def resolve(self, module: str, expr: ast.expr, seen: frozenset = frozenset()) -> Target | None:
        """What a Name or dotted Attribute expression used in `module` refers to."""
        if isinstance(expr, ast.Name):
            if expr.id in self.modules[module].functions:
                return None
            return self.lookup(module, expr.id, seen) or _builtin(expr.id)
        if isinstance(expr, ast.Attribute):
            owner = self.resolve(module, expr.value, seen)
            if owner and owner[0] == "module":
                return self.lookup(owner[1], expr.attr, seen)
        return None

    def bases(self, module: str, cls: ast.ClassDef) -> list[Target]:
        """The resolved bases of a class (those that resolve)."""
        return [t for base in cls.bases if (t := self.resolve(module, base))]

    def is_exception(self, target: Target) -> bool:
        """Whether a resolved class is BaseException or inherits from it."""
        kind, module, name = target
        if kind == "builtin":
            return name in BUILTIN_EXCEPTIONS
        if kind != "class":
            return False
        key = (module, name)
        if key not in self._exception:
            self._exception[key] = False  # a cycle of bases is no exception
            cls = self.modules[module].classes[name]
            self._exception[key] = any(self.is_exception(b) for b in self.bases(module, cls))
        return self._exception[key]


BUILTIN_EXCEPTIONS = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and not name.startswith("_")
}


def _builtin(name: str) -> Target | None:
    return ("builtin", "", name) if name in BUILTIN_EXCEPTIONS else None


def first_paragraph(doc: str | None) -> str:
    """A docstring's first paragraph on one line, cut to TEXT_CHARS at a word boundary."""
    if not doc:
        return ""
    paragraph = " ".join(re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0].split())
    if len(paragraph) > TEXT_CHARS:
        paragraph = paragraph[:TEXT_CHARS].rsplit(" ", 1)[0] + " ..."
    return paragraph


def signature(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``name(args)`` as written, cut to SIGNATURE_CHARS."""
    args = ast.unparse(node.args)
    if len(args) > SIGNATURE_CHARS:
        args = args[:SIGNATURE_CHARS].rsplit(",", 1)[0] + ", ..."
    return f"{name}({args})"


def _public(name: str) -> bool:
    return not name.startswith("_")


class GraphBuilder:
    """Collects the nodes and edges of the parsed modules."""

    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.resolver = Resolver(modules)
        self.nodes: dict[str, tuple[str, str, str, str]] = {}
        """Node id -> (type, short name, qualifier, text)."""
        self.edges: set[tuple[str, str, str]] = set()

    def node_id(self, target: Target) -> str | None:
        """The node id of a resolved class or module (None where it is no node)."""
        kind, module, name = target
        if kind == "builtin":
            return self.add_builtin(name)
        if kind == "module":
            return f"mod:{module}" if self.modules[module].public else None
        if not (self.modules[module].public and _public(name)):
            return None
        prefix = "exc" if self.resolver.is_exception(target) else "cls"
        return f"{prefix}:{module}.{name}"

    def add_builtin(self, name: str) -> str:
        """The node of a builtin exception, added with its builtin ancestors."""
        nid = f"exc:builtins.{name}"
        if nid not in self.nodes:
            value = BUILTIN_EXCEPTIONS[name]
            text = first_paragraph(value.__doc__) or f"The builtin exception {name}."
            self.nodes[nid] = ("exception", name, "builtins", text)
            for base in value.__bases__:
                if base.__name__ in BUILTIN_EXCEPTIONS:
                    self.edges.add((nid, self.add_builtin(base.__name__), "inherits_from"))
        return nid

    def build(self) -> None:
        """Every node and edge of the public modules."""
        for module in self.modules.values():
            if module.public:
                self.add_module(module)

    def add_module(self, module: Module) -> None:
        """A module's node, its submodule_of and imports edges, and its classes and functions."""
        mid = f"mod:{module.name}"
        doc = first_paragraph(ast.get_docstring(module.tree))
        label = "package" if module.is_package else "module"
        self.nodes[mid] = ("module", module.name, "", doc or f"The stdlib {label} {module.name}.")
        parent = module.name.rpartition(".")[0]
        if parent in self.modules:
            self.edges.add((mid, f"mod:{parent}", "submodule_of"))
        for imported in self.imports(module):
            if imported != module.name and self.modules[imported].public:
                self.edges.add((mid, f"mod:{imported}", "imports"))
        for name, cls in module.classes.items():
            if _public(name):
                self.add_class(module, cls)
        for name, fn in module.functions.items():
            if _public(name):
                fid = f"fn:{module.name}.{name}"
                text = _joined(signature(name, fn), first_paragraph(ast.get_docstring(fn)))
                self.nodes[fid] = ("function", name, module.name, text)
                self.edges.add((fid, mid, "defined_in"))
                self.add_raises(module, fid, fn)

    def imports(self, module: Module) -> Iterator[str]:
        """The stdlib modules a module imports anywhere in its source."""
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                yield from (a.name for a in node.names if a.name in self.modules)
            elif isinstance(node, ast.ImportFrom):
                source = absolute_import(module, node)
                for alias in node.names:
                    if f"{source}.{alias.name}" in self.modules:
                        yield f"{source}.{alias.name}"
                    elif source in self.modules:
                        yield source

    def add_class(self, module: Module, cls: ast.ClassDef) -> None:
        """A class or exception node, its defined_in, inherits_from and methods."""
        cid = self.node_id(("class", module.name, cls.name))
        assert cid is not None
        kind = "exception" if cid.startswith("exc:") else "class"
        doc = first_paragraph(ast.get_docstring(cls))
        self.nodes[cid] = (kind, cls.name, module.name, doc or f"class {cls.name} in {module.name}")
        self.edges.add((cid, f"mod:{module.name}", "defined_in"))
        for base in self.resolver.bases(module.name, cls):
            if base[0] != "module" and (bid := self.node_id(base)) and bid != cid:
                self.edges.add((cid, bid, "inherits_from"))
        for node in _top_level(cls.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
                mid = f"meth:{module.name}.{cls.name}.{node.name}"
                if mid in self.nodes:  # a property's setter, a platform's variant
                    continue
                sig = signature(f"{cls.name}.{node.name}", node)
                text = _joined(sig, first_paragraph(ast.get_docstring(node)))
                self.nodes[mid] = ("method", node.name, f"{module.name}.{cls.name}", text)
                self.edges.add((mid, cid, "method_of"))
                self.add_raises(module, mid, node)

    def add_raises(self, module: Module, source: str, fn: ast.AST) -> None:
        """The raises edges of the exceptions raised in a function's own body."""
        for node in _own_nodes(fn):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                target = self.resolver.resolve(module.name, exc)
                if not (target and self.resolver.is_exception(target)):
                    continue
                if (eid := self.node_id(target)) is not None:
                    self.edges.add((source, eid, "raises"))


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not of the functions and classes nested in it."""
    for child in ast.iter_child_nodes(fn):
        if not isinstance(child, Scoped | ast.Lambda):
            yield child
            yield from _own_nodes(child)


def _joined(sig: str, doc: str) -> str:
    return f"{sig}: {doc}" if doc else sig


def node_names(nodes: dict[str, tuple[str, str, str, str]]) -> dict[str, str]:
    """Each node's display name: its short name where unique (ignoring case), else qualified."""
    shared = Counter(short.casefold() for _, short, _, _ in nodes.values())
    names: dict[str, str] = {}
    for nid, (kind, short, qualifier, _) in nodes.items():
        if kind == "module" or shared[short.casefold()] == 1:
            names[nid] = short
        elif kind == "method":
            names[nid] = f"{short} ({qualifier.rpartition('.')[2]})"
        else:
            names[nid] = f"{short} ({qualifier})"
    taken = Counter(name.casefold() for name in names.values())
    for nid, (kind, short, qualifier, _) in nodes.items():
        if kind == "method" and taken[names[nid].casefold()] > 1:
            names[nid] = f"{short} ({qualifier})"
    clashes = Counter(name.casefold() for name in names.values())
    for nid, name in names.items():
        if clashes[name.casefold()] > 1 and nodes[nid][0] != "module":
            names[nid] = f"{nodes[nid][1]} ({nid.split(':', 1)[1]})"
    return names


def pystdlib_tables(root: Path) -> tuple[pa.Table, pa.Table]:
    """Nodes (id, type, name, text) and edges (src, dst, relation) of the stdlib at `root`."""
    modules = {name: parse_module(name, path) for name, path in stdlib_files(root)}
    graph = GraphBuilder(modules)
    graph.build()
    names = node_names(graph.nodes)
    ids = sorted(graph.nodes)
    nodes = pa.table(
        {
            "id": ids,
            "type": [graph.nodes[i][0] for i in ids],
            "name": [names[i] for i in ids],
            "text": [graph.nodes[i][3] for i in ids],
        }
    )
    rows = sorted(graph.edges, key=lambda e: (e[2], e[0], e[1]))
    edges = pa.table({k: [r[i] for r in rows] for i, k in enumerate(("src", "dst", "relation"))})
    return nodes, edges


def source_lines(root: Path) -> list[str]:
    """The Python version and a sha256 over the sorted (relative path, file sha256) pairs."""
    pairs = sorted(
        (str(path.relative_to(root)), hashlib.sha256(path.read_bytes()).hexdigest())
        for _, path in stdlib_files(root)
    )
    digest = hashlib.sha256("\n".join(f"{p}\t{h}" for p, h in pairs).encode()).hexdigest()
    return [
        f"Python {platform.python_version()} ({platform.python_implementation()})",
        f"{len(pairs)} source files parsed, sha256 of the sorted (path, sha256) list: {digest}",
    ]
