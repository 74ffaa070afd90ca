"""What a server command listens on and serves: labelled snapshots, a listen check.

Shared by `ark mcp` and `ark serve`.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

from cli.guards import fail

_LABEL = re.compile(r"[A-Za-z0-9_-]{1,40}")


def check_listen(host: str, port: int) -> None:
    """Fail with a clear message now if HOST:PORT cannot be listened on (busy, bad host)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        fail(f"cannot listen on {host}:{port} ({error}); choose another --port or --host")


def labelled_snapshots(specs: list[str], command: str) -> list[tuple[str, Path]]:
    """(label, directory) per argument of `command` (`ark mcp`, `ark serve`).

    Labels default to the directory name and must differ.
    """
    labelled = []
    for spec in specs:
        label, sep, rest = spec.partition("=")
        if sep and _LABEL.fullmatch(label) and not Path(spec).exists():
            labelled.append((label, Path(rest)))
            continue
        path = Path(spec)
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", path.resolve().name).strip("-")[:40]
        labelled.append((name or "graph", path))
    seen: dict[str, Path] = {}
    for label, path in labelled:
        if label in seen:
            fail(
                f"two snapshots are labelled {label!r} ({seen[label]}, {path}); name them "
                f"with LABEL=DIR, e.g. {command} a={seen[label]} b={path}"
            )
        seen[label] = path
    return labelled
