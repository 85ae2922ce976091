"""The on-storage format: dataset spec, bucket layout, commit log entries, HDF5 shards (dataset/FORMAT.md)."""
