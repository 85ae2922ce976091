package io.shardflow.edge;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;

/** Encodes images with the JDK's own codecs (javax.imageio), so a device needs no other library. */
final class ImageEncoder {

    private ImageEncoder() {
    }

    /** JPEG at {@code quality} in 0..1 (0.9 keeps training images close to the original). */
    static byte[] jpeg(BufferedImage image, float quality) {
        if (quality < 0 || quality > 1) {
            throw new IllegalArgumentException("JPEG quality " + quality + " is outside 0..1");
        }
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ImageOutputStream out = ImageIO.createImageOutputStream(bytes)) {
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality);
            writer.setOutput(out);
            writer.write(null, new IIOImage(image, null, null), param);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a JPEG", e);
        } finally {
            writer.dispose();
        }
        return bytes.toByteArray();
    }

    static byte[] png(BufferedImage image) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", bytes)) {
                throw new IllegalStateException("no PNG writer in this JVM");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a PNG", e);
        }
        return bytes.toByteArray();
    }
}
