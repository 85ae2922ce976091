package io.shardflow.console.render;

import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.TensorSpec;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import javax.imageio.ImageIO;

/**
 * Pictures of tensors, made on the server so the browser needs no decoder of its own: encoded
 * JPEG/PNG bytes are decoded and scaled down; uint8 H×W and H×W×C (C = 1, 3, 4) tensors become a PNG
 * as they are; float or wider-integer tensors of those shapes, or C×H×W (C = 1 or 3, the layout
 * PyTorch uses), are scaled from their own min..max to 0..255 first, and say so. Anything else has
 * no picture: the page shows statistics and a slice instead ({@link TensorSummary}).
 */
public final class Thumbnails {

    /** What a tensor can be drawn as. */
    public enum Kind { ENCODED_IMAGE, PIXELS, SCALED_PIXELS, NONE }

    private Thumbnails() {
    }

    public static Kind kind(TensorSpec tensor, List<Integer> rowShape) {
        if (tensor.dtype() == DType.BYTES) {
            return tensor.encoding() != null ? Kind.ENCODED_IMAGE : Kind.NONE;
        }
        if (tensor.dtype() == DType.STRING || layout(rowShape) == null) {
            return Kind.NONE;
        }
        return tensor.dtype() == DType.UINT8 && !layout(rowShape).channelsFirst() ? Kind.PIXELS : Kind.SCALED_PIXELS;
    }

    /** An encoded picture and its media type. */
    public record Picture(byte[] bytes, String contentType) {
    }

    /**
     * The tensor as a picture at most {@code maxSide} pixels on its longer side, or empty if it has no
     * picture or does not decode. An encoded image that already fits is passed through byte for byte;
     * everything else is a PNG.
     */
    public static Optional<Picture> picture(TensorSpec tensor, List<Integer> rowShape, byte[] row, int maxSide) {
        BufferedImage image = switch (kind(tensor, rowShape)) {
            case ENCODED_IMAGE -> decode(row);
            case PIXELS, SCALED_PIXELS -> pixels(tensor.dtype(), layout(rowShape), row);
            case NONE -> null;
        };
        if (image == null) {
            return Optional.empty();
        }
        if (tensor.dtype() == DType.BYTES && Math.max(image.getWidth(), image.getHeight()) <= maxSide) {
            return Optional.of(new Picture(row, tensor.encoding()));
        }
        return Optional.of(new Picture(encode(fit(image, maxSide)), "image/png"));
    }

    /** Height, width and channels of an image-shaped tensor, and whether channels come first. */
    record Layout(int height, int width, int channels, boolean channelsFirst) {
    }

    /** Smaller sides than this are not pictures but small arrays (a 4x5 matrix reads better as numbers). */
    private static final int MIN_SIDE = 8;

    static Layout layout(List<Integer> shape) {
        if (shape.stream().anyMatch(d -> d == null || d < 1)) {
            return null;
        }
        if (shape.size() == 2 && shape.get(0) >= MIN_SIDE && shape.get(1) >= MIN_SIDE) {
            return new Layout(shape.get(0), shape.get(1), 1, false);
        }
        if (shape.size() == 3) {
            int a = shape.get(0);
            int c = shape.get(2);
            if ((c == 1 || c == 3 || c == 4) && a >= MIN_SIDE && shape.get(1) >= MIN_SIDE) {
                return new Layout(a, shape.get(1), c, false);
            }
            if ((a == 1 || a == 3) && shape.get(1) >= MIN_SIDE && c >= MIN_SIDE) {
                return new Layout(shape.get(1), c, a, true);
            }
        }
        return null;
    }

    private static BufferedImage decode(byte[] encoded) {
        try {
            return ImageIO.read(new ByteArrayInputStream(encoded));
        } catch (IOException | RuntimeException e) {
            return null; // ingest checks the structure, not every pixel: a broken image has no thumbnail
        }
    }

    private static BufferedImage pixels(DType dtype, Layout layout, byte[] row) {
        int h = layout.height();
        int w = layout.width();
        int c = layout.channels();
        int n = h * w * c;
        if (TensorValues.count(dtype, row) != n) {
            return null;
        }
        double min = 0;
        double scale = 1;
        if (dtype != DType.UINT8) {
            min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                double v = TensorValues.at(dtype, row, i);
                if (Double.isFinite(v)) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
            scale = max > min ? 255.0 / (max - min) : 0;
            min = Double.isFinite(min) ? min : 0;
        }
        BufferedImage image = new BufferedImage(w, h, c == 4 ? BufferedImage.TYPE_INT_ARGB : BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int[] ch = new int[4];
                for (int k = 0; k < c; k++) {
                    int index = layout.channelsFirst() ? (k * h + y) * w + x : (y * w + x) * c + k;
                    double v = TensorValues.at(dtype, row, index);
                    ch[k] = (int) Math.max(0, Math.min(255, Math.round(Double.isFinite(v) ? (v - min) * scale : 0)));
                }
                int r = ch[0];
                int g = c >= 3 ? ch[1] : r;
                int b = c >= 3 ? ch[2] : r;
                int a = c == 4 ? ch[3] : 255;
                image.setRGB(x, y, a << 24 | r << 16 | g << 8 | b);
            }
        }
        return image;
    }

    private static BufferedImage fit(BufferedImage image, int maxSide) {
        int w = image.getWidth();
        int h = image.getHeight();
        double factor = Math.min(1.0, (double) maxSide / Math.max(w, h));
        if (factor >= 1.0) {
            return image; // small tensors stay at their size; the page scales them up without smoothing
        }
        int tw = Math.max(1, (int) Math.round(w * factor));
        int th = Math.max(1, (int) Math.round(h * factor));
        BufferedImage out = new BufferedImage(tw, th, image.getColorModel().hasAlpha()
                ? BufferedImage.TYPE_INT_ARGB : BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.drawImage(image, 0, 0, tw, th, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    private static byte[] encode(BufferedImage image) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ImageIO.write(image, "png", out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a PNG", e);
        }
    }
}
