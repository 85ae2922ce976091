package io.shardflow.edge;

import io.shardflow.schemas.Sample;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * Deterministic demo samples: a {@code channels x size x size} float32 image and an int64 class
 * label, derived from a seed and the sample number, so tests can recompute any published value.
 */
public final class SyntheticSamples {

    private final String dataset;
    private final String version;
    private final String deviceId;
    private final int channels;
    private final int size;
    private final int classes;
    private final long seed;

    public SyntheticSamples(String dataset, String version, String deviceId, int channels, int size, int classes, long seed) {
        this.dataset = dataset;
        this.version = version;
        this.deviceId = deviceId;
        this.channels = channels;
        this.size = size;
        this.classes = classes;
        this.seed = seed;
    }

    public String sampleId(long n) {
        return deviceId + "-" + seed + "-" + n;
    }

    public float[] image(long n) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + n);
        float[] pixels = new float[channels * size * size];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (float) random.nextDouble();
        }
        return pixels;
    }

    public long label(long n) {
        return Math.floorMod(seed + n * 7919L, classes);
    }

    public Sample sample(long n, Instant producedAt) {
        return SampleBuilder.forDataset(dataset, version)
                .id(sampleId(n)).device(deviceId).producedAt(producedAt)
                .float32("image", image(n), channels, size, size)
                .int64("label", new long[] {label(n)})
                .attribute("source", "synthetic")
                .build();
    }
}
