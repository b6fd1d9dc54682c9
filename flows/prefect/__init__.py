"""agentv on Prefect: the local server, recording (and losing) a run, naming, pruning, shared
limits, scrubbing, JSON flow parameters and the background import of Prefect."""
