"""A run's viewer page has an address before any viewer runs: the running viewer's when it
serves the run's results, else the one `agentv view <folder>` serves it at (port 4210)."""
from __future__ import annotations

import json
import socket

from agentv.flows.prefect import viewer
from agentv.flows.prefect.viewer import DEFAULT_PORT, ViewPage, view_page


def test_no_viewer_names_the_address_agentv_view_serves_and_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    page = view_page(tmp_path / "results" / "eval_x.jsonl")
    assert page.url == f"http://127.0.0.1:{DEFAULT_PORT}/run/eval_x"
    assert not page.live and page.command == f"agentv view {tmp_path / 'results'}"
    assert page.base == f"http://127.0.0.1:{DEFAULT_PORT}"


def test_a_running_viewer_serving_the_folder_gives_its_own_address(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTV_HOME", str(home))
    folder = tmp_path / "results"
    (home / "view.json").write_text(json.dumps(
        {"pid": 1, "url": "http://127.0.0.1:5555", "sources": [str(folder.resolve())]}))
    monkeypatch.setattr("agentv.flows.prefect.server.healthy", lambda url, timeout=1.0: True)
    page = view_page(folder / "eval_x.jsonl")
    assert page.live and page.url == "http://127.0.0.1:5555/run/eval_x"
    other = view_page(tmp_path / "elsewhere" / "eval_y.jsonl")  # not served: the default
    assert not other.live and other.url.startswith(f"http://127.0.0.1:{DEFAULT_PORT}/")


def test_case_and_compare_addresses_are_the_viewer_routes():
    page = ViewPage("http://h:1/run/eval b", True, "agentv view x", "eval b")
    assert page.case_url("geo/capital & co", "alpha", 2) == \
        "http://h:1/run/eval b/case/geo%2Fcapital%20%26%20co?trial=2&target=alpha"
    assert page.case_url("c1") == "http://h:1/run/eval b/case/c1?trial=0"
    assert page.compare_url("/r/eval_a.jsonl") == "http://h:1/compare/eval%20b?baseline=eval_a"


def test_the_preferred_port_is_4210_unless_taken(monkeypatch):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        monkeypatch.setattr(viewer, "DEFAULT_PORT", port)
        assert not viewer.port_free(port)
        assert viewer.preferred_port() != port
