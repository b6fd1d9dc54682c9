"""Plan: options checked at the door, cases × targets × trials expanded into jobs, prompts,
batches, resume; validate and the JSON Schemas read the same plan.
"""
