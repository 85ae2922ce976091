package io.shardflow.dataset.shard;

import java.awt.image.BufferedImage;

/** An image's pixels as uint8 (H, W, 3) RGB bytes, the layout Pillow and numpy give; shared with other modules' tests. */
public final class ImagePixels {

    private ImagePixels() {
    }

    public static byte[] rgb(BufferedImage image) {
        byte[] out = new byte[image.getHeight() * image.getWidth() * 3];
        int i = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                out[i++] = (byte) (rgb >> 16);
                out[i++] = (byte) (rgb >> 8);
                out[i++] = (byte) rgb;
            }
        }
        return out;
    }
}
