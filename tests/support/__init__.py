"""What several test modules share: paths, hypothesis strategies, reference implementations and
app-test helpers. Import from here, never from a ``conftest`` (those hold fixtures only)."""
