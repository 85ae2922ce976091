package io.shardflow.dataset.pages;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** A shard's digest from its bytes in memory is the digest of the same bytes read from a file. */
class ShardFileDigestTest {

    @Property(tries = 60)
    void shouldDigestBytesInMemoryAsTheSameBytesOnDisk(@ForAll @IntRange(min = 1, max = 3_000_000) int size,
            @ForAll @IntRange(min = 0, max = 3) int pageSizeChoice, @ForAll long seed) throws Exception {
        int pageSize = new int[] {4096, 65536, PageIndex.DEFAULT_PAGE_SIZE, 1 << 20}[pageSizeChoice];
        byte[] bytes = new byte[size];
        new java.util.Random(seed).nextBytes(bytes);
        Path file = Files.createTempFile("digest", ".h5");
        try {
            Files.write(file, bytes);
            ByteBuffer direct = ByteBuffer.allocateDirect(size + 7);
            direct.position(7);
            direct.put(bytes).position(7);

            ShardFileDigest fromFile = ShardFileDigest.of(file, pageSize);
            ShardFileDigest fromMemory = ShardFileDigest.of(direct.asReadOnlyBuffer(), pageSize);

            assertThat(fromMemory).isEqualTo(fromFile);
            assertThat(direct.position()).isEqualTo(7); // the caller's view is not consumed
            assertThat(fromMemory.bytes()).isEqualTo(size);
            assertThat(fromMemory.sha256()).isEqualTo(sha256(bytes, 0, size));
            assertThat(fromMemory.pageIndex().pages()).hasSize((size + pageSize - 1) / pageSize);
            int last = (size - 1) / pageSize;
            assertThat(fromMemory.pageIndex().pages().get(last)).isEqualTo(sha256(bytes, last * pageSize, size));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String sha256(byte[] bytes, int from, int to) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Arrays.copyOfRange(bytes, from, to)));
    }
}
