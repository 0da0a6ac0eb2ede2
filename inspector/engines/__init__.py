"""Where a corpus is measured: the engines behind ``measure.engine.Engine``.

``measure.Workspace`` holds the corpus in memory and is the reference engine; ``stream`` reads it
a batch at a time and parks each batch on disk, measuring every configuration in one pass over
the batches; ``ray`` holds the batches (or the held corpus's partitions) on a Ray cluster.
``open`` picks and opens one from a run's choice. ``reading`` and ``partition`` are what the
streamed and Ray engines share: reading a batch of files, and measuring a batch of documents.
"""
