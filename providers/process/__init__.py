"""Processes agentv starts: supervision (nothing outlives agentv), the reaper, command templates
and their shape, the child environment.
"""
