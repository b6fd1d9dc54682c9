"""What a run lets go of once it is no longer needed: the case rows a published case page
holds; and the streaming summary's top and bottom cases equal a full sort's."""
from __future__ import annotations

import pytest

from agentv.flows.artifacts.case_pages import PAGE_ROWS, CasePages


def rows(n: int, start: int = 0) -> list[tuple]:
    return [(f"c{i:05d}", 0, 1.0, "pass", "", "", "", "", 1.0, "q", "a", "e", ())
            for i in range(start, start + n)]


def test_rows_published_in_a_page_are_let_go_and_the_rest_still_goes_out():
    cases = {("evals/a.yaml", "t"): rows(2 * PAGE_ROWS + 3)}
    pages = CasePages(cases)
    early = pages.full_pages()
    assert [len(t) for _, _, t in early] == [PAGE_ROWS, PAGE_ROWS]
    # paged rows leave the list (no placeholder per row): only the unsent rows stay
    kept = cases[("evals/a.yaml", "t")]
    unsent = range(2 * PAGE_ROWS, 2 * PAGE_ROWS + 3)
    assert [r[0] for r in kept] == [f"c{i:05d}" for i in unsent]
    final = pages.final_tables()
    last = range(2 * PAGE_ROWS, 2 * PAGE_ROWS + 3)
    assert [r["eval_id"] for _, _, t in final for r in t] == [f"c{i:05d}" for i in last]
    ids = [r["eval_id"] for _, _, t in early + final for r in t]
    assert sorted(ids) == [f"c{i:05d}" for i in range(2 * PAGE_ROWS + 3)]  # each once


@pytest.mark.parametrize("targets, n", [(("t1",), 40), (("t1", "t2"), 25), (("t1",), 1),
                                        (("t1",), 4), (("t1", "t2"), 2)])
def test_top_and_bottom_found_without_sorting_equal_a_full_sort(targets, n):
    """One dataset: the streaming summary finds its top/bottom 3 with heaps; ties in the
    mean are broken by id and target exactly as a full sort of the case means does."""
    import random

    from agentv.tasks.results.sink import RunSink
    from tests.tasks.results.test_frames import record
    rng = random.Random(n)
    recs = [record(f"case-{i:03d}", rng.choice([0.0, 0.5, 1.0, round(rng.random(), 2)]),
                   target=t, trial=k) for i in range(n) for t in targets for k in range(2)]
    rng.shuffle(recs)
    sink = RunSink(None)
    for r in recs:
        sink.add(r)
    means: dict[tuple[str, str], list[float]] = {}
    for r in recs:
        means.setdefault((r["eval_id"], r["target"]), []).append(r["score"])
    ordered = sorted(((sum(s) / len(s), e, t) for (e, t), s in means.items()),
                     key=lambda m: (-m[0], m[1], m[2]))
    label = (lambda e, t: e) if len(targets) == 1 else (lambda e, t: f"{e} [{t}]")
    top = min(3, (len(ordered) + 1) // 2)
    expected = ([(label(e, t), round(m, 3)) for m, e, t in ordered[:top]],
                [(label(e, t), round(m, 3)) for m, e, t in ordered[top:][-3:][::-1]])
    got = sink.tally.summary()
    assert (got["top"], got["bottom"]) == expected
