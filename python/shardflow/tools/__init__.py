"""Tools around the reader: shard inspection, the read benchmark, and writing test datasets."""
