"""The typed API's parts without Prefect: datasets, callable targets, typed judges, mailboxes and
the EvalLoop worker. The public one-import facade is ``agentv`` (agentv/__init__.py).
"""
