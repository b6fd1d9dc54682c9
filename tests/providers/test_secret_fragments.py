"""The fragment matcher's prefilter lets through only texts the full matcher leaves alone."""
from __future__ import annotations

import random
import string

from agentv.providers.secret_fragments import MAX_PROBES, FragmentIndex


def _unfiltered(index: FragmentIndex) -> FragmentIndex:
    full = FragmentIndex(())
    full.anchors = index.anchors
    full.probes = None  # the full matcher, no prefilter
    return full


def _texts(secrets: list[str], rnd: random.Random, count: int) -> list[str]:
    alphabet = string.ascii_letters + string.digits + "-_\"\\ :{}\n"
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rnd.randint(0, 6)):
            parts.append("".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))))
            secret = rnd.choice(secrets)
            start = rnd.randint(0, len(secret) - 1)
            parts.append(secret[start:start + rnd.randint(1, len(secret))])
        texts.append("".join(parts))
    return texts


def test_the_prefilter_masks_exactly_what_the_full_matcher_masks():
    rnd = random.Random(7)
    secrets = ["sk-stub-not-a-real-key", "abcdefghijklmnopqrstuvwxyz0123456789",
               "aaaaaaaaaaaaaaaaaaaa", "short-secret"]
    index = FragmentIndex(secrets)
    assert index.probes is not None
    full = _unfiltered(index)
    for text in _texts(secrets, rnd, 3000):
        assert index.mask(text, "***") == full.mask(text, "***"), text


def test_a_run_of_12_characters_at_any_offset_is_masked():
    secret = "0123456789abcdefghijklmnopqrstuv"
    index = FragmentIndex([secret])
    for start in range(len(secret) - 11):
        text = f"x{secret[start:start + 12]}y"
        assert index.mask(text, "***") == "x***y"
    assert index.mask(f"x{secret[3:14]}y", "***") == f"x{secret[3:14]}y"  # 11: left alone


def test_many_secrets_go_without_the_prefilter():
    rnd = random.Random(3)
    secrets = ["".join(rnd.choice(string.ascii_letters) for _ in range(40))
               for _ in range(MAX_PROBES)]
    index = FragmentIndex(secrets)
    assert index.probes is None
    text = f"key: {secrets[5][7:30]}."
    assert index.mask(text, "***") == "key: ***."
