"""The flow run's first artifact links the run's viewer page: keyed per suite × target,
its text saying how to open the page when no viewer runs yet (no Prefect server here:
the recording captures the artifact)."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

from agentv.flows.artifacts import view_link
from agentv.flows.prefect.recording import Recording
from agentv.flows.prefect.viewer import DEFAULT_PORT, ViewPage


def _plan(tmp_path):
    job = SimpleNamespace(target="alpha")
    return SimpleNamespace(suites=[SimpleNamespace(path=str(tmp_path / "geo.test.yaml"),
                                                   dataset="")],
                           jobs=[job], targets={"alpha": None})


class Captured(Recording):
    """A recording whose artifacts are kept here (or fail with ``error``)."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__()
        self.made: list = []
        self.error = error

    async def create(self, spec, want_id=False):
        if self.error is not None:
            raise self.error
        self.made.append(spec)
        return "artifact-id"


def test_the_link_names_the_page_and_how_to_open_it(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    results = tmp_path / "results" / "eval_1.jsonl"
    recording = Captured()
    got = asyncio.run(view_link.publish_view_link(results, _plan(tmp_path), recording))
    assert got == "artifact-id"
    [made] = recording.made
    assert made.type == "markdown" and made.key == "agentv-view-geo-alpha"
    text = ("agentv view: eval_1 — failing cases first (start the viewer first: agentv view "
            f"{tmp_path / 'results'})")
    assert made.data == f"[{text}](http://127.0.0.1:{DEFAULT_PORT}/run/eval_1)"
    assert "failures first" in made.description


def test_a_live_viewer_link_says_failing_cases_first():
    text, description = view_link.view_link_text(
        ViewPage("http://127.0.0.1:9/run/r", True, "agentv view /x", "r"))
    assert text == "agentv view: r — failing cases first" and "agentv view /x" in description


def test_nothing_is_published_once_recording_is_lost(tmp_path):
    recording = Captured(AssertionError("published"))
    recording.lost = "the API is gone"
    assert asyncio.run(view_link.publish_view_link(tmp_path / "r.jsonl", _plan(tmp_path),
                                                   recording)) is None


def test_a_link_that_cannot_be_published_is_logged_not_raised(tmp_path, caplog):
    assert asyncio.run(view_link.publish_view_link(tmp_path / "r.jsonl", _plan(tmp_path),
                                                   Captured(ValueError("bad key")))) is None
    assert "could not publish the viewer link: bad key" in caplog.text
