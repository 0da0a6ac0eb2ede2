"""The Ray engine: a Ray session (``session``), the held corpus's partitions measured on the
cluster (``partitions``), and the streamed corpus's batches read and held by its actors
(``corpus.ClusterWorkspace``)."""
