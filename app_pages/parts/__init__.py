"""What several pages share: the run's context and session state, tables, windows, units, paid
runs, retrievers, access, chunk sets and worker processes."""
