"""Fragments of secrets: any run of ``FRAGMENT`` (12) or more characters of a registered
secret, wherever it appears (a server echoing part of a key, a log line cut mid-token), is
masked — not only whole values (``providers.secrets``).

A streaming matcher whose cost per record does not grow with the number of secrets: every
``ANCHOR``-character (6) substring of every secret spelling goes into one dict; the text is
probed only at positions that are multiples of ``ANCHOR`` (a run of ≥ 12 characters always
covers one aligned 6-character window whole), and each hit is verified by extending it both
ways along the secret. Cost: ``len(text) / 6`` dict look-ups per record plus the rare hits.

With few secrets, a prefilter first: a run of 12 characters of a secret always holds one of
its windows at an offset that is a multiple of 6 (its ``probes``); a text holding none of
them (``str`` searches, in C) has nothing to mask and is let through untouched.
"""
from __future__ import annotations

from typing import Iterable

FRAGMENT = 12
ANCHOR = FRAGMENT // 2
MAX_PER_ANCHOR = 16  # a 6-gram common to many secrets: checked against the first ones
MAX_PROBES = 48  # more probes than this cost more than the probing they would spare


class FragmentIndex:
    def __init__(self, values: Iterable[str]) -> None:
        self.anchors: dict[str, list[tuple[str, int]]] = {}
        probes: dict[str, None] = {}
        for value in values:
            if len(value) < FRAGMENT:
                continue
            probes.update(dict.fromkeys(value[offset:offset + ANCHOR]
                                        for offset in range(0, len(value) - ANCHOR + 1, ANCHOR)))
            for offset in range(len(value) - ANCHOR + 1):
                spots = self.anchors.setdefault(value[offset:offset + ANCHOR], [])
                if len(spots) < MAX_PER_ANCHOR:
                    spots.append((value, offset))
        # the prefilter (None: too many secrets for it to pay)
        self.probes = tuple(probes) if len(probes) <= MAX_PROBES else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Merged [start, end) spans of ``text`` that are ≥ FRAGMENT characters of a secret."""
        found: list[tuple[int, int]] = []
        anchors, n = self.anchors, len(text)
        pos = 0
        while pos + ANCHOR <= n:
            spots = anchors.get(text[pos:pos + ANCHOR])
            if spots:
                span = _longest(text, pos, spots)
                if span is not None:
                    found.append(span)
                    pos = span[1] - span[1] % ANCHOR + ANCHOR if span[1] > pos else pos + ANCHOR
                    continue
            pos += ANCHOR
        return _merged(found)

    def mask(self, text: str, mask: str) -> str:
        if not self.anchors or len(text) < FRAGMENT:
            return text
        if self.probes is not None and not any(probe in text for probe in self.probes):
            return text  # no run of 12 characters of a secret in it
        spans = self.spans(text)
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            out.append(text[last:start])
            out.append(mask)
            last = end
        out.append(text[last:])
        return "".join(out)


def _longest(text: str, pos: int, spots: list[tuple[str, int]]) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for value, offset in spots:
        start, s = pos, offset
        while start > 0 and s > 0 and text[start - 1] == value[s - 1]:
            start, s = start - 1, s - 1
        end, e = pos + ANCHOR, offset + ANCHOR
        while end < len(text) and e < len(value) and text[end] == value[e]:
            end, e = end + 1, e + 1
        if end - start >= FRAGMENT and (best is None or end - start > best[1] - best[0]):
            best = (start, end)
    return best


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
