"""Object store access: S3 (MinIO, S3Proxy, AWS) and a local directory laid out like a bucket."""
