"""Engine: runs a plan's jobs — the case runner (target, then evaluators), the one job runner,
target runtimes, the head start, dumps.
"""
