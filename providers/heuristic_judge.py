"""The offline default judge: a deterministic key-term heuristic, not an LLM.

Used when the judge target is the mock (the bundled example, ``--dry-run``). It scores a
candidate answer the way bbeval's keyword grader does:

1. **Key terms** come from the expected outcome and the reference answer: every
   ``inline code`` span as one term, then every word of 3+ characters that is not a
   stop word or an instruction verb ("mentions", "explains", …), lower-cased, in order,
   without duplicates.
2. A term is a **hit** when the answer contains it: code spans and identifiers
   (``items.length``) as a substring of the answer, plain words by stem (``runs`` matches
   ``running``; suffixes -ing, -ed, -es, -s, -ly are dropped).
3. **score = hits / terms** (0.5 when there is nothing to compare with).

Every verdict says so in its reasoning (``OFFLINE_LABEL``) — these scores measure word
overlap, not quality. Hits and misses list the terms (at most 4 each in the record).
"""
from __future__ import annotations

import re

OFFLINE_LABEL = "Offline heuristic judge (key-term overlap, no LLM)"
STOP_WORDS = frozenset("""
a about above after again all also an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from
further had has have having here how if in into is it its itself just me more most my no
nor not now of off on once only or other our out over own same she should so some such
than that the their them then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
user user's answer answers response responds respond reply replies candidate
mentions mention mentioned finds find found identifies identify explains explain
describes describe provides provide includes include states state gives give suggests
suggest proposes propose uses use using correctly clearly properly must shall may might
names lists list diagnoses diagnose recommends recommend means
etc e.g i.e way one two
""".split())
_CODE = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.'\-]*[A-Za-z0-9_]|[A-Za-z0-9]")
SUFFIXES = ("ing", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def key_terms(*texts: str) -> list[str]:
    terms: list[str] = []
    for text in texts:
        for code in _CODE.findall(text or ""):
            terms.append(" ".join(code.lower().split()))
        for word in _WORD.findall(_CODE.sub(" ", text or "")):
            word = word.lower().strip(".'-")
            if len(word) >= 3 and word not in STOP_WORDS:
                terms.append(word)
    return list(dict.fromkeys(t for t in terms if t))


def _is_identifier(term: str) -> bool:
    return not term.isalpha()


def found(term: str, answer: str) -> bool:
    text = " ".join(answer.lower().split())
    if _is_identifier(term):
        return term in text
    return stem(term) in {stem(w.lower().strip(".'-")) for w in _WORD.findall(answer)}


def judge(answer: str, expected_outcome: str, reference: str) -> dict:
    """The verdict ``{score, hits, misses, reasoning}`` for one answer."""
    terms = key_terms(expected_outcome, reference)
    if not terms:
        return {"score": 0.5, "hits": [], "misses": [],
                "reasoning": f"{OFFLINE_LABEL}: no expected outcome or reference to compare "
                             "with; neutral score 0.5."}
    hits = [t for t in terms if found(t, answer)]
    misses = [t for t in terms if t not in hits]
    return {"score": round(len(hits) / len(terms), 3),
            "hits": [f"mentions '{t}'" for t in hits],
            "misses": [f"does not mention '{t}'" for t in misses],
            "reasoning": f"{OFFLINE_LABEL}: {len(hits)} of {len(terms)} key terms from the "
                         "expected outcome and reference appear in the answer."}


def rubric_checks(answer: str, rubrics: list[tuple[str, str]], ranged: bool) -> dict:
    """A rubric judge's reply: an item is satisfied when at least half of its key terms
    appear in the answer (ranged rubrics: 0-10 by the share of terms found)."""
    checks = []
    for rubric_id, outcome in rubrics:
        terms = key_terms(outcome)
        share = (sum(found(t, answer) for t in terms) / len(terms)) if terms else 0.5
        reasoning = f"{OFFLINE_LABEL}: {share:.0%} of the item's key terms appear in the answer."
        check: dict[str, object] = {"id": rubric_id, "reasoning": reasoning}
        if ranged:
            check["score"] = round(10 * share)
        else:
            check["satisfied"] = share >= 0.5
        checks.append(check)
    return {"checks": checks, "overall_reasoning": f"{OFFLINE_LABEL}."}


RATINGS = ((0.9, "excellent"), (0.7, "good"), (0.45, "fair"), (0.2, "poor"), (0.0, "wrong"))


def rating(answer: str, expected_outcome: str, reference: str) -> dict:
    """A categorical judge's reply ``{rating, reason}``: the key-term score as a label."""
    verdict = judge(answer, expected_outcome, reference)
    label = next(name for floor, name in RATINGS if verdict["score"] >= floor)
    return {"rating": label, "reason": verdict["reasoning"]}
