"""Test-wide guards: no network except loopback, no hub downloads."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

# The dense tests live beside their owners (graphs/dense, tools, agent, rank, cli): one fixture set.
pytest_plugins = ["dense_fixtures"]

_real_connect = socket.socket.connect


def _is_loopback(address: object) -> bool:
    if isinstance(address, (str, bytes)):
        return True  # AF_UNIX path
    if not (isinstance(address, tuple) and address):
        return False
    host = address[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_loopback(address):
        raise RuntimeError(
            f"network access blocked in tests (tried {address!r}); "
            "start a local server on 127.0.0.1 instead"
        )
    _real_connect(self, address)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def _test_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the whole run, under pytest's own temp dirs (it prunes old runs')."""
    return tmp_path_factory.mktemp("ark-cache")


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch, _test_cache: Path) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("ARK_CACHE_DIR", str(_test_cache))  # never the user's cache
    yield


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """One local Ray instance with 2 CPUs for the whole run (starting one takes seconds)."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    context = ray.init(
        num_cpus=2, include_dashboard=False, configure_logging=False, log_to_driver=False
    )
    yield context.address_info["address"]
    ray.shutdown()
