"""Results: the records a run writes (JSONL/YAML, Parquet), the streaming statistics, trials,
compare, JUnit and the quality gates' checks.
"""
