"""What a run publishes to Prefect: summary, batch tables, case tables and pages, the outcome."""
