"""AgentV 4.x eval files (``tests:`` / ``assertions`` / ``criteria``, ``*.eval.yaml``,
``EVAL.yaml``), lowered into the same ``EvalSuite``/``EvalCase`` plan as agentv-eval-v2 files:
one engine and one set of evaluators run both; only the record keeps each generation's keys.
"""
