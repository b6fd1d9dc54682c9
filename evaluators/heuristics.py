"""bbeval heuristics (seed 001): ``keywords``, ``error_detection`` and ``heuristic``.

``keywords``: ``expected`` terms give a hit ratio (found / expected), ``forbidden`` terms
a miss ratio (found / forbidden); score = hit ratio × (1 − miss ratio), so any
forbidden term costs its share. ``error_detection``: an answer that looks like a stack
trace or tool error output scores 0, and every heuristic records ``error_like`` in
``details``. ``heuristic``: bbeval's aspect coverage — bullet/numbered lines of the
reference answer are aspects, matched by key-term overlap; score = aspects hit / total.
"""
from __future__ import annotations

import re

from pydantic import Field, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult

ERROR_PREFIXES = ("error:", "err:", "fatal:", "exception", "traceback", "panic:",
                  "vs code command failed", "no response file was generated", "timed out",
                  "cli not found", "command not found")
_ERROR_LINES = re.compile(
    r"^(Traceback \(most recent call last\):"
    r"|\s*File \".+\", line \d+"  # python frames
    r"|\s+at [\w$.<>\[\]]+ ?\(.*:\d+(?::\d+)?\)"  # JS / Java frames
    r"|(?:[\w.]+\.)?\w+(?:Error|Exception): .+)$", re.MULTILINE)
_STOP_WORDS = {"the", "and", "but", "for", "with", "are", "was", "were", "been", "being",
               "have", "has", "had", "does", "did", "will", "would", "could", "should"}
_ASPECT = re.compile(r"^\s*(?:[-*•]|\d+\.)\s*(.+)$")


def error_line(text: str) -> str | None:
    """The line that makes ``text`` look like error output, else None."""
    stripped = (text or "").strip()
    if not stripped:
        return None
    first = stripped.splitlines()[0].strip()
    if first.lower().startswith(ERROR_PREFIXES):
        return first[:200]
    frames = _ERROR_LINES.findall(stripped)
    if len(frames) >= 2 or (frames and "Traceback" in stripped):
        return frames[-1].strip()[:200]
    return None


def _error_details(text: str) -> dict:
    line = error_line(text)
    return {"error_like": line is not None, **({"error_line": line} if line else {})}


class ErrorDetection(Evaluator):
    """0 if the answer looks like a stack trace or tool error output, else 1."""
    kind = "error_detection"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        details = _error_details(ctx.candidate_answer)
        if details["error_like"]:
            return self.result(0.0, misses=[f"answer looks like an error: {details['error_line']}"],
                               reasoning="The answer is error output, not an answer.",
                               details=details)
        return self.result(1.0, hits=["answer is not error output"], details=details)


class Keywords(Evaluator):
    """Hit ratio of the `expected` terms × (1 − ratio of `forbidden` terms found)."""
    kind = "keywords"
    expected: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    case_sensitive: bool = False
    whole_word: bool = True
    detect_errors: bool = True

    @model_validator(mode="after")
    def _some_keywords(self) -> "Keywords":
        if not self.expected and not self.forbidden:
            raise ValueError("keywords needs 'expected' and/or 'forbidden' terms")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        answer = ctx.candidate_answer or ""
        details = _error_details(answer)
        if self.detect_errors and details["error_like"]:
            return self.result(0.0, misses=[f"answer looks like an error: {details['error_line']}"],
                               reasoning="The answer is error output, not an answer.",
                               details=details)
        found = [k for k in self.expected if self._present(k, answer)]
        banned = [k for k in self.forbidden if self._present(k, answer)]
        hit_ratio = len(found) / len(self.expected) if self.expected else 1.0
        miss_ratio = len(banned) / len(self.forbidden) if self.forbidden else 0.0
        hits = [f"mentions '{k}'" for k in found] + [
            f"avoids '{k}'" for k in self.forbidden if k not in banned]
        misses = [f"does not mention '{k}'" for k in self.expected if k not in found] + [
            f"contains forbidden '{k}'" for k in banned]
        details.update(hit_ratio=hit_ratio, miss_ratio=miss_ratio)
        return self.result(hit_ratio * (1 - miss_ratio), hits, misses,
                           f"{len(found)}/{len(self.expected)} expected, "
                           f"{len(banned)}/{len(self.forbidden)} forbidden", details=details)

    def _present(self, keyword: str, text: str) -> bool:
        flags = 0 if self.case_sensitive else re.IGNORECASE
        pattern = re.escape(keyword)
        if self.whole_word:
            pattern = rf"(?<!\w){pattern}(?!\w)"
        return re.search(pattern, text, flags) is not None


class AspectCoverage(Evaluator):
    """bbeval aspect coverage of the reference answer's bullets (pass at `threshold`)."""
    kind = "heuristic"
    threshold: float = Field(default=0.5, gt=0, le=1)  # share of key terms that must appear

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        answer = ctx.candidate_answer or ""
        details = _error_details(answer)
        aspects = extract_aspects(ctx.reference_answer)
        if details["error_like"]:
            return self.result(0.0, misses=[f"answer looks like an error: "
                                            f"{details['error_line']}"], details=details)
        if not aspects:
            return self.result(1.0, reasoning="No aspects in the reference answer.",
                               details=details)
        text = _normalize(answer)
        words = set(text.split())
        hits = [a for a in aspects if self._covered(a, words, text)]
        misses = [a for a in aspects if a not in hits]
        details["aspects"] = len(aspects)
        return self.result(len(hits) / len(aspects), hits, misses,
                           f"{len(hits)}/{len(aspects)} aspects covered", details=details)

    def _covered(self, aspect: str, words: set[str], text: str) -> bool:
        terms = [w for w in aspect.split() if len(w) > 2 and w not in _STOP_WORDS][:5]
        if terms and sum(t in words for t in terms) / len(terms) >= self.threshold:
            return True
        pairs = zip(aspect.split(), aspect.split()[1:])
        return any(f"{a} {b}" in text for a, b in pairs)


def extract_aspects(reference: str) -> list[str]:
    out = []
    for line in (reference or "").splitlines():
        match = _ASPECT.match(line)
        if match and _normalize(match.group(1)):
            out.append(_normalize(match.group(1)))
    return out


def _normalize(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
