"""Reading a dataset: the commit log, the shard cache and download-ahead, the sample order, split and resume."""
