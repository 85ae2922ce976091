package io.shardflow.edge;

import io.shardflow.schemas.DType;
import java.awt.image.BufferedImage;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a {@link Sample} from plain Java arrays, packing each tensor as little-endian C-order bytes
 * and checking that the element count matches the shape, so a device finds its own mistakes before
 * ingest-app has to dead-letter them. For a spec with a free dimension ({@code boxes:float32:?x4})
 * pass the sample's own shape ({@code float32("boxes", values, 3, 4)}).
 */
public final class SampleBuilder {

    private final String dataset;
    private final String version;
    private String sampleId;
    private String deviceId;
    private Instant producedAt;
    private final List<Tensor> tensors = new ArrayList<>();
    private final Map<String, String> attributes = new HashMap<>();

    private SampleBuilder(String dataset, String version) {
        this.dataset = dataset;
        this.version = version;
    }

    public static SampleBuilder forDataset(String dataset, String version) {
        return new SampleBuilder(dataset, version);
    }

    public SampleBuilder id(String sampleId) {
        this.sampleId = sampleId;
        return this;
    }

    public SampleBuilder device(String deviceId) {
        this.deviceId = deviceId;
        return this;
    }

    public SampleBuilder producedAt(Instant producedAt) {
        this.producedAt = producedAt;
        return this;
    }

    public SampleBuilder attribute(String key, String value) {
        attributes.put(key, value);
        return this;
    }

    public SampleBuilder float32(String name, float[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 4, shape, name);
        buffer.asFloatBuffer().put(values);
        return add(name, DType.FLOAT32, shape, buffer);
    }

    public SampleBuilder float64(String name, double[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 8, shape, name);
        buffer.asDoubleBuffer().put(values);
        return add(name, DType.FLOAT64, shape, buffer);
    }

    public SampleBuilder int64(String name, long[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 8, shape, name);
        buffer.asLongBuffer().put(values);
        return add(name, DType.INT64, shape, buffer);
    }

    public SampleBuilder int32(String name, int[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 4, shape, name);
        buffer.asIntBuffer().put(values);
        return add(name, DType.INT32, shape, buffer);
    }

    public SampleBuilder uint8(String name, byte[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 1, shape, name);
        buffer.put(values).flip();
        return add(name, DType.UINT8, shape, buffer);
    }

    /** float16 (IEEE half precision), rounded from float32 to nearest even as numpy does. */
    public SampleBuilder float16(String name, float[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 2, shape, name);
        for (float value : values) {
            buffer.putShort(HalfFloats.toFloat16(value));
        }
        return add(name, DType.FLOAT16, shape, buffer);
    }

    /** bfloat16 (the top half of a float32), rounded to nearest even as PyTorch does. */
    public SampleBuilder bfloat16(String name, float[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 2, shape, name);
        for (float value : values) {
            buffer.putShort(HalfFloats.toBfloat16(value));
        }
        return add(name, DType.BFLOAT16, shape, buffer);
    }

    /** uint16 from ints in 0..65535. */
    public SampleBuilder uint16(String name, int[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 2, shape, name);
        for (int value : values) {
            if (value < 0 || value > 0xFFFF) {
                throw new IllegalArgumentException("tensor '" + name + "' value " + value + " is outside uint16");
            }
            buffer.putShort((short) value);
        }
        return add(name, DType.UINT16, shape, buffer);
    }

    /** uint32 from longs in 0..4294967295. */
    public SampleBuilder uint32(String name, long[] values, int... shape) {
        ByteBuffer buffer = allocate(values.length, 4, shape, name);
        for (long value : values) {
            if (value < 0 || value > 0xFFFFFFFFL) {
                throw new IllegalArgumentException("tensor '" + name + "' value " + value + " is outside uint32");
            }
            buffer.putInt((int) value);
        }
        return add(name, DType.UINT32, shape, buffer);
    }

    /** uint64 from the unsigned bits of each long ({@link Long#parseUnsignedLong} gives them). */
    public SampleBuilder uint64(String name, long[] unsignedBits, int... shape) {
        ByteBuffer buffer = allocate(unsignedBits.length, 8, shape, name);
        buffer.asLongBuffer().put(unsignedBits);
        return add(name, DType.UINT64, shape, buffer);
    }

    /** A string tensor: one UTF-8 text of any length. */
    public SampleBuilder string(String name, String text) {
        return add(name, DType.STRING, new int[0], ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** A bytes tensor: one opaque value of any length, e.g. an encoded image. */
    public SampleBuilder bytes(String name, byte[] value) {
        return add(name, DType.BYTES, new int[0], ByteBuffer.wrap(value.clone()));
    }

    /** A bytes tensor holding {@code image} encoded as JPEG at {@code quality} (0-1), for a {@code NAME:bytes:image/jpeg} spec. */
    public SampleBuilder jpeg(String name, BufferedImage image, float quality) {
        return add(name, DType.BYTES, new int[0], ByteBuffer.wrap(ImageEncoder.jpeg(image, quality)));
    }

    /** A bytes tensor holding {@code image} encoded as PNG, for a {@code NAME:bytes:image/png} spec. */
    public SampleBuilder png(String name, BufferedImage image) {
        return add(name, DType.BYTES, new int[0], ByteBuffer.wrap(ImageEncoder.png(image)));
    }

    /** A tensor from bytes already packed little-endian in C order. */
    public SampleBuilder raw(String name, DType dtype, byte[] littleEndian, int... shape) {
        return add(name, dtype, shape, ByteBuffer.wrap(littleEndian.clone()));
    }

    public Sample build() {
        if (sampleId == null || deviceId == null) {
            throw new IllegalStateException("a sample needs an id and a device id");
        }
        return Sample.newBuilder()
                .setDataset(dataset).setVersion(version).setSampleId(sampleId).setDeviceId(deviceId)
                .setProducedAt(producedAt != null ? producedAt : Instant.now())
                // Key order, not Map.copyOf's per-JVM order: Avro writes map entries as iterated, and the
                // same sample must encode to the same bytes in every process and in the Python SDK.
                .setTensors(List.copyOf(tensors)).setAttributes(Collections.unmodifiableMap(new TreeMap<>(attributes)))
                .build();
    }

    private SampleBuilder add(String name, DType dtype, int[] shape, ByteBuffer data) {
        List<Integer> dims = Arrays.stream(shape).boxed().toList();
        tensors.add(new Tensor(name, dtype, dims, data.position(0)));
        return this;
    }

    private static ByteBuffer allocate(int elements, int itemSize, int[] shape, String name) {
        long expected = 1;
        for (int dim : shape) {
            expected *= dim;
        }
        if (expected != elements) {
            throw new IllegalArgumentException("tensor '" + name + "' has " + elements + " values but shape "
                    + Arrays.toString(shape) + " needs " + expected);
        }
        return ByteBuffer.allocate(elements * itemSize).order(ByteOrder.LITTLE_ENDIAN);
    }
}
