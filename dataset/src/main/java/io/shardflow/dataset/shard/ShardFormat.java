package io.shardflow.dataset.shard;

/**
 * Names inside a shard file (format 1). Python readers use the same names with plain h5py:
 *
 * <pre>
 * /                      attrs: shardflow_format=1, dataset, version, shard_id, sample_count, spec_fingerprint
 * /tensors/&lt;name&gt;       (N, *shape) in the tensor's dtype; attr shardflow_dtype = numpy dtype name
 *                        (bool is stored as uint8 0/1: use arr.astype(bool); bfloat16 as uint16 bits)
 * /tensors/&lt;name&gt;/      a group for a string, bytes or free-shape tensor: values (all rows' elements
 *                        concatenated, 1-D; uint8 for string and bytes), offsets (N+1 int64: row i is
 *                        values[offsets[i]:offsets[i+1]]), shapes ((N, rank) int64, free shapes only);
 *                        attrs shardflow_dtype, shardflow_shape (spec text), shardflow_encoding (media)
 * /sample_id, /device_id (N,) fixed-length UTF-8 strings
 * /produced_at           (N,) int64 epoch milliseconds
 * /attributes            (N,) fixed-length UTF-8 strings, one JSON object per row, keys sorted
 * </pre>
 */
public final class ShardFormat {

    public static final int FORMAT_VERSION = 1;

    public static final String ATTR_FORMAT = "shardflow_format";
    public static final String ATTR_DATASET = "dataset";
    public static final String ATTR_VERSION = "version";
    public static final String ATTR_SHARD_ID = "shard_id";
    public static final String ATTR_SAMPLE_COUNT = "sample_count";
    public static final String ATTR_SPEC_FINGERPRINT = "spec_fingerprint";
    public static final String ATTR_DTYPE = "shardflow_dtype";
    /** On a variable tensor's group: the spec's shape text ({@code ?x4}), "" for string and bytes. */
    public static final String ATTR_SHAPE = "shardflow_shape";
    /** On a bytes tensor's group: its media type, when the spec declares one. */
    public static final String ATTR_ENCODING = "shardflow_encoding";

    public static final String DS_VALUES = "values";
    public static final String DS_OFFSETS = "offsets";
    public static final String DS_SHAPES = "shapes";

    public static final String GROUP_TENSORS = "tensors";
    public static final String DS_SAMPLE_ID = "sample_id";
    public static final String DS_DEVICE_ID = "device_id";
    public static final String DS_PRODUCED_AT = "produced_at";
    public static final String DS_ATTRIBUTES = "attributes";

    private ShardFormat() {
    }
}
