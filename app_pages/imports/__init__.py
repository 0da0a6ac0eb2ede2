"""The Import page's parts: the files read and kept, the cached imports and golden sets, the report."""
