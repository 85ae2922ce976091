package io.shardflow.dataset.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.dataset.shard.ShardDigest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The page hash rule, the index's bytes, and the shared vectors of docs/page-index-vectors.json. */
class PageIndexTest {

    private static final Path VECTORS = Path.of("..", "docs", "page-index-vectors.json");

    @Property(tries = 200)
    void shouldHashEveryPageOfAnyFileInOnePassWithTheWholeFileHash(
            @ForAll @Size(min = 1, max = 40_000) byte[] content, @ForAll @IntRange(min = 12, max = 15) int log2PageSize)
            throws IOException {
        int pageSize = 1 << log2PageSize;
        Path file = Files.createTempFile("pages", ".bin");
        try {
            Files.write(file, content);
            ShardFileDigest digest = ShardFileDigest.of(file, pageSize);

            assertThat(digest.bytes()).isEqualTo(content.length);
            assertThat(digest.sha256()).isEqualTo(ShardDigest.sha256(content));
            PageIndex index = digest.pageIndex();
            assertThat(index.pageCount()).isEqualTo((content.length + pageSize - 1) / pageSize);
            for (int page = 0; page < index.pageCount(); page++) {
                byte[] bytes = Arrays.copyOfRange(content, (int) index.pageStart(page),
                        (int) index.pageStart(page) + index.pageLength(page));
                assertThat(index.pages().get(page)).as("page %d", page).isEqualTo(ShardDigest.sha256(bytes));
            }
            assertThat(PageIndexCodec.decode(PageIndexCodec.encode(index), "test")).isEqualTo(index);
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void shouldMatchTheSharedVectorsByteForByte() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(VECTORS.toFile()).get("cases");
        assertThat(cases).hasSizeGreaterThanOrEqualTo(4);
        for (JsonNode vector : cases) {
            int n = vector.get("bytes").asInt();
            byte[] content = new byte[n];
            for (int i = 0; i < n; i++) {
                content[i] = (byte) (i % 251);
            }
            Path file = Files.createTempFile("vector", ".bin");
            try {
                Files.write(file, content);
                ShardFileDigest digest = ShardFileDigest.of(file, vector.get("pageSize").asInt());
                List<String> pages = new ArrayList<>();
                vector.get("pages").forEach(p -> pages.add(p.asText()));
                assertThat(digest.sha256()).isEqualTo(vector.get("sha256").asText());
                assertThat(digest.pageIndex().pages()).isEqualTo(pages);
                byte[] encoded = PageIndexCodec.encode(digest.pageIndex());
                assertThat(new String(encoded, StandardCharsets.UTF_8)).isEqualTo(vector.get("index").asText());
                assertThat(ShardFileDigest.sha256Hex(encoded, 0, encoded.length)).isEqualTo(vector.get("indexSha256").asText());
            } finally {
                Files.delete(file);
            }
        }
    }

    @Test
    void shouldRefuseAnIndexThatDoesNotDescribeItsShard() {
        String sha = "a".repeat(64);
        assertThatThrownBy(() -> new PageIndex(4096, 10_000, sha, List.of(sha, sha)))
                .hasMessageContaining("must list 3 pages, it lists 2");
        assertThatThrownBy(() -> new PageIndex(5000, 10_000, sha, List.of(sha, sha)))
                .hasMessageContaining("power of two");
        assertThatThrownBy(() -> new PageIndex(4096, 1, sha, List.of("A".repeat(64))))
                .hasMessageContaining("64 lowercase hex");
        byte[] newer = ("{\"formatVersion\":2,\"pageSize\":4096,\"bytes\":1,\"sha256\":\"" + sha + "\",\"pages\":[\"" + sha
                + "\"]}").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> PageIndexCodec.decode(newer, "k")).hasMessageContaining("formatVersion 2")
                .hasMessageContaining("upgrade");
        assertThatThrownBy(() -> PageIndexCodec.decode("{\"formatVersion\":1}".getBytes(StandardCharsets.UTF_8), "k"))
                .hasMessageContaining("page index k");
    }
}
