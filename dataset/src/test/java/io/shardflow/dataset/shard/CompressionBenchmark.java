package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compression ratio and write speed per codec and writer on real-looking data: camera frames as raw
 * uint8 and as JPEG, and float32 sensor traces. Run with
 * {@code mvn -B -pl dataset test -Dtest=CompressionBenchmark -Dshardflow.bench=true}.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class CompressionBenchmark {

    private static final int FRAMES = 40;
    private static final int TRACES = 200;

    @TempDir
    Path tmp;

    @Test
    void shouldReportRatioAndSpeedPerCodec() throws Exception {
        Random random = new Random(7);
        List<BufferedImage> frames = new ArrayList<>();
        for (int i = 0; i < FRAMES; i++) {
            frames.add(scene(random, 240, 320));
        }
        report("raw frames uint8 240x320x3", TensorSpec.parse("frame:uint8:240x320x3"), frames.stream().map(ImagePixels::rgb).toList());
        report("JPEG frames q0.9 (bytes)", TensorSpec.parse("frame:bytes:image/jpeg"), frames.stream().map(CompressionBenchmark::jpeg).toList());
        List<byte[]> sensors = new ArrayList<>();
        for (int i = 0; i < TRACES; i++) {
            sensors.add(sensor(random, 4096));
        }
        report("float32 sensor 4096", TensorSpec.parse("imu:float32:4096"), sensors);
    }

    private void report(String what, TensorSpec tensor, List<byte[]> values) {
        DatasetSpec base = Specs.spec("d", "v1", tensor);
        List<SampleRow> rows = new ArrayList<>();
        long raw = 0;
        for (int i = 0; i < values.size(); i++) {
            rows.add(new SampleRow("s-" + i, "dev", i, Map.of(tensor.name(), values.get(i)), Map.of()));
            raw += values.get(i).length;
        }
        for (ShardWriterKind kind : ShardWriterKind.values()) {
            for (String codec : List.of("none", "gzip:1", "gzip:4", "gzip:9", "lzf")) {
                DatasetSpec spec = base.withCompression(Compression.parse(codec));
                Path file = tmp.resolve(kind + "-" + codec + ".h5");
                kind.create().write(file, spec, new ShardId("d", "v1", 0, 0), rows); // warm-up
                long best = Long.MAX_VALUE;
                for (int run = 0; run < 3; run++) {
                    long start = System.nanoTime();
                    kind.create().write(file, spec, new ShardId("d", "v1", 0, 0), rows);
                    best = Math.min(best, System.nanoTime() - start);
                }
                long readStart = System.nanoTime();
                assertThat(new ShardReader().read(file).rows()).hasSize(rows.size());
                long read = System.nanoTime() - readStart;
                long size = size(file);
                System.out.printf("| %s | %s | %s | %.1f | %.2f | %.1f | %.0f | %.0f |%n", what, kind.settingValue(), codec, raw / 1e6,
                        (double) raw / size, size / 1e6, raw / 1e6 / (best / 1e9), raw / 1e6 / (read / 1e9));
            }
        }
    }

    /** Sky, ground and a few objects with sensor noise: what a camera frame compresses like, not random bytes. */
    private static BufferedImage scene(Random random, int h, int w) {
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_3BYTE_BGR);
        int ox = random.nextInt(w);
        int oy = random.nextInt(h);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int base = y < h / 2 ? 150 + y : 60 + (x * 40 / w);
                boolean object = Math.abs(x - ox) < 40 && Math.abs(y - oy) < 30;
                int r = clamp((object ? 200 : base) + (int) (random.nextGaussian() * 4));
                int g = clamp((object ? 40 : base + 10) + (int) (random.nextGaussian() * 4));
                int b = clamp((object ? 30 : base + 30) + (int) (random.nextGaussian() * 4));
                image.setRGB(x, y, (r << 16) | (g << 8) | b);
            }
        }
        return image;
    }

    private static int clamp(int v) {
        return Math.max(0, Math.min(255, v));
    }

    private static byte[] jpeg(BufferedImage image) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ImageIO.write(image, "jpeg", out);
            return out.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A slow random walk with small noise, quantised like a 16-bit ADC: an IMU or temperature trace. */
    private static byte[] sensor(Random random, int n) {
        ByteBuffer out = ByteBuffer.allocate(n * 4).order(ByteOrder.LITTLE_ENDIAN);
        double level = random.nextGaussian();
        for (int i = 0; i < n; i++) {
            level += random.nextGaussian() * 0.01;
            out.putFloat((float) (Math.round((level + random.nextGaussian() * 0.002) * 4096) / 4096.0));
        }
        return out.array();
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
