"""The eval viewer: the runs a results folder holds, one run's case table (failures first,
a column per target), one case in full, and a run against its baseline.

Pure data and HTML (no Prefect): ``index`` lists runs from a small summary per results
file, ``run_data``/``case_data``/``compare_data`` build each page's JSON from the results
and agentv's one statistics engine (tasks/results/tally.py, compare.py, trials.py),
``page`` wraps it with the one page code (``app.js``, ``app.css``). ``server`` serves the
pages (Starlette, ``agentv view``); ``bundle`` embeds every page's data in one HTML file
(``agentv report``), rendered by the same script.
"""
