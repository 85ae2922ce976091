package io.shardflow.cli.bench;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.edge.SyntheticSamples;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark sample: a float32 {@code 3 x size x size} image and an int64 label. Size 32 gives the
 * issue's 12 KB sample (12,296 tensor bytes), size 112 its 150 KB one (150,536).
 */
public record SampleShape(String name, int imageSize) {

    public static final SampleShape SMALL = new SampleShape("12KB", 32);
    public static final SampleShape LARGE = new SampleShape("150KB", 112);
    private static final int CHANNELS = 3;
    private static final int CLASSES = 10;

    /** {@code 12kb}, {@code 150kb}, or an image edge in pixels such as {@code 64}. */
    public static SampleShape parse(String text) {
        String name = text.strip().toLowerCase(Locale.ROOT);
        if (name.equals("12kb")) {
            return SMALL;
        }
        if (name.equals("150kb")) {
            return LARGE;
        }
        try {
            int size = Integer.parseInt(name);
            if (size < 1 || size > 256) {
                throw new IllegalArgumentException("image size must be within 1..256, got " + size);
            }
            SampleShape shape = new SampleShape("", size);
            return new SampleShape(Math.round(shape.tensorBytes() / 1000.0) + "KB", size);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("sample size must be 12kb, 150kb or an image edge in pixels, not '" + text + "'", e);
        }
    }

    /** Tensor payload of one sample: the image plus the 8-byte label. */
    public long tensorBytes() {
        return (long) CHANNELS * imageSize * imageSize * Float.BYTES + Long.BYTES;
    }

    /** How many samples carry about {@code bytes} of tensors (at least one). */
    public long samplesFor(long bytes) {
        return Math.max(1, Math.round(bytes / (double) tensorBytes()));
    }

    public SyntheticSamples samples(String dataset, String version) {
        return new SyntheticSamples(dataset, version, "bench-device", CHANNELS, imageSize, CLASSES, 7);
    }

    public DatasetSpec spec(String dataset, String version) {
        return new DatasetSpec(dataset, version,
                List.of(TensorSpec.parse("image:float32:" + CHANNELS + "x" + imageSize + "x" + imageSize), TensorSpec.parse("label:int64")),
                "label", "bench", "benchmark samples of " + name, 0, false, Instant.now());
    }
}
