"""How a run's cases execute beyond one batch task: a task run per case, Dask batches and
their cluster-wide limits, the plans on Dask workers."""
