"""Every triage test runs without a network: reaching GitHub from a test is a failure."""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

import pytest


def _refuse(*_: Any, **__: Any) -> Any:
    raise AssertionError("a triage test reached for the network")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urllib.request, "urlopen", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    for name in ("GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_STEP_SUMMARY", "KB_SITE_URL"):
        monkeypatch.delenv(name, raising=False)
