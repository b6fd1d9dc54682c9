"""The judge prompts of both AgentV generations, as each program writes them: the system
prompt (the reply's JSON schema), the default template and the contract a re-ask repeats.
Both templates are AgentV's one template with the generation's words (``default_template``).
Texts only; ``evaluators.llm_judge`` is the one judge that sends them."""
from __future__ import annotations

SCHEMA_HEAD = ('You must respond with a single JSON object matching this schema:\n\n{\n'
               '  "score": <number between 0.0 and 1.0>,\n')
INTRO = ("You are an expert {grader}. Your goal is to grade the {answer} based on how well it "
         "achieves the {goal} for the original task.")
GUIDANCE = (
    "Use the reference_answer as a gold standard for a high-quality response (if provided). "
    "The reference_answer may be a simple text response, or it may contain a sequence of "
    "expected agent messages including tool calls. When it contains multiple messages, the "
    "last message represents the final expected answer. The {answer} does not need to match "
    "it verbatim, but should capture the key points and follow the same spirit.\n\n"
    "Be concise and focused in your evaluation. Provide succinct, specific feedback rather "
    "than verbose explanations.")


def default_template(grader: str, answer: str, sections: list[tuple[str, str]]) -> str:
    """AgentV's default judge template: ``sections`` are (heading, placeholder) pairs, the
    first naming the goal, the last the answer."""
    words = {"grader": grader, "answer": answer, "goal": sections[0][0]}
    body = "\n\n".join(f"[[ ## {heading} ## ]]\n{placeholder}" for heading, placeholder
                       in sections)
    return f"{INTRO.format(**words)}\n\n{GUIDANCE.format(**words)}\n\n{body}"


# ------------------------------------------------------------------ v2: {score, hits, misses}
SYSTEM_PROMPT = SCHEMA_HEAD + (
    '  "hits": [<array of strings, max 4 items, brief specific achievements>],\n'
    '  "misses": [<array of strings, max 4 items, brief specific failures or omissions, '
    'empty if none>],\n'
    '  "reasoning": "<string, concise explanation for the score, 1-2 sentences max>"\n}')
DEFAULT_TEMPLATE = default_template("evaluator", "candidate_answer", [
    (name, f"{{{{ {name} }}}}") for name in ("expected_outcome", "question", "reference_answer",
                                             "candidate_answer")])
CONTRACT = 'a JSON object {"score": <0.0-1.0>, "hits": [...], "misses": [...], "reasoning": "..."}'

# ------------------------------------------------------------------ 4.x: {score, assertions}
SYSTEM_4 = SCHEMA_HEAD + (
    '  "assertions": [\n    {\n'
    '      "text": "<brief description of what was checked>",\n'
    '      "passed": <boolean>,\n'
    '      "evidence": "<concise evidence, 1-2 sentences, optional>"\n    }\n  ],\n'
    '  "details": {<optional object with domain-specific structured metrics>}\n}')
TEMPLATE_4 = default_template("grader", "answer", [
    ("criteria", "{{criteria}}"), ("question", "{{input}}"),
    ("reference_answer", "{{expected_output}}"), ("answer", "{{output}}")])
CONTRACT_4 = 'a JSON object {"score": <0.0-1.0>, "assertions": [{"text": ..., "passed": ...}]}'


def repair_prompt_4(validation_error: str, invalid_reply: str) -> str:
    """AgentV 4.42.4's last ask after three broken replies: repair the last one."""
    return "\n".join([
        "The following evaluation response has useful grading content but invalid JSON "
        "structure.",
        "Repair it to satisfy the schema in the system prompt.",
        "Preserve the evaluation meaning, do not re-grade the answer, and return only a "
        "single JSON object.", "", "Validation error:", validation_error, "",
        "Invalid response:", invalid_reply])
