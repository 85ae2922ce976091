package io.shardflow.app.validate;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * A structure check of an encoded image, cheap enough for every sample: it does not decode pixels.
 *
 * <ul>
 *   <li>JPEG: starts with SOI, its marker segments are well-formed up to the start of scan, a
 *       frame header (SOF) gives a non-zero size and 1 to 4 components, and it ends with EOI. A
 *       truncated or cut file fails; damage inside the entropy-coded data does not.</li>
 *   <li>PNG: the signature, IHDR first with a non-zero size, every chunk's CRC, and IEND last.
 *       Any flipped byte fails.</li>
 * </ul>
 */
final class ImageCheck {

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private ImageCheck() {
    }

    /** Why {@code data} is not a well-formed image of {@code mediaType}, or empty when it is. */
    static Optional<String> problem(String mediaType, ByteBuffer data) {
        ByteBuffer bytes = data.duplicate();
        return switch (mediaType) {
            case "image/jpeg" -> jpeg(bytes);
            case "image/png" -> png(bytes);
            default -> Optional.of("unknown media type " + mediaType);
        };
    }

    private static Optional<String> jpeg(ByteBuffer b) {
        int start = b.position();
        int end = b.limit();
        if (end - start < 4 || u8(b, start) != 0xFF || u8(b, start + 1) != 0xD8) {
            return Optional.of("no JPEG start-of-image marker");
        }
        if (u8(b, end - 2) != 0xFF || u8(b, end - 1) != 0xD9) {
            return Optional.of("no end-of-image marker (truncated?)");
        }
        boolean frame = false;
        int at = start + 2;
        while (at + 4 <= end) {
            if (u8(b, at) != 0xFF) {
                return Optional.of("bad marker at byte " + (at - start));
            }
            int marker = u8(b, at + 1);
            if (marker == 0xFF) {
                at++; // fill byte
                continue;
            }
            int length = (u8(b, at + 2) << 8) | u8(b, at + 3);
            if (length < 2 || at + 2 + length > end) {
                return Optional.of("segment 0x" + Integer.toHexString(marker) + " at byte " + (at - start) + " runs past the end");
            }
            if (isStartOfFrame(marker)) {
                if (length < 8) {
                    return Optional.of("frame header too short");
                }
                int height = (u8(b, at + 5) << 8) | u8(b, at + 6);
                int width = (u8(b, at + 7) << 8) | u8(b, at + 8);
                int components = u8(b, at + 9);
                if (width == 0 || height == 0 || components < 1 || components > 4) {
                    return Optional.of("frame header gives " + width + "x" + height + " with " + components + " components");
                }
                frame = true;
            }
            if (marker == 0xDA) {
                return frame ? Optional.empty() : Optional.of("start of scan before any frame header");
            }
            at += 2 + length;
        }
        return Optional.of("no start-of-scan segment");
    }

    /** SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
    private static boolean isStartOfFrame(int marker) {
        return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    }

    private static Optional<String> png(ByteBuffer b) {
        int start = b.position();
        int end = b.limit();
        if (end - start < PNG_SIGNATURE.length) {
            return Optional.of("shorter than the PNG signature");
        }
        for (int i = 0; i < PNG_SIGNATURE.length; i++) {
            if (b.get(start + i) != PNG_SIGNATURE[i]) {
                return Optional.of("no PNG signature");
            }
        }
        int at = start + PNG_SIGNATURE.length;
        boolean first = true;
        CRC32 crc = new CRC32();
        while (at + 12 <= end) {
            long length = b.getInt(at) & 0xFFFFFFFFL;
            if (at + 12 + length > end) {
                return Optional.of("chunk at byte " + (at - start) + " runs past the end");
            }
            String type = new String(new byte[] {b.get(at + 4), b.get(at + 5), b.get(at + 6), b.get(at + 7)},
                    StandardCharsets.ISO_8859_1);
            crc.reset();
            crc.update(b.duplicate().position(at + 4).limit(at + 8 + (int) length));
            if ((int) crc.getValue() != b.getInt(at + 8 + (int) length)) {
                return Optional.of("chunk " + type + " fails its CRC");
            }
            if (first && (!type.equals("IHDR") || length != 13 || b.getInt(at + 8) == 0 || b.getInt(at + 12) == 0)) {
                return Optional.of("first chunk is not an IHDR with a non-zero size");
            }
            first = false;
            at += 12 + (int) length;
            if (type.equals("IEND")) {
                return at == end ? Optional.empty() : Optional.of("bytes after IEND");
            }
        }
        return Optional.of("no IEND chunk (truncated?)");
    }

    private static int u8(ByteBuffer b, int index) {
        return b.get(index) & 0xFF;
    }
}
