"""The streamed engine: the corpus read a batch at a time, each batch parked on disk (``spill``)
and measured by worker processes (``batches``); BM25 and the probe's ranking over the batches
(``ranking``, ``fusion``), golden sets located and scored batch by batch (``quotes``,
``golden``). ``workspace.StreamWorkspace`` is the engine."""
