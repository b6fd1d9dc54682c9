"""The ``agentv`` command line: argument parsing, the console, the worker command."""
