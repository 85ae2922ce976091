package io.shardflow.dataset.pages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of a page index object (dataset/FORMAT.md, "Page index"): compact UTF-8 JSON, fields in
 * a fixed order, no whitespace, so the same shard bytes always give the same index bytes
 * (docs/ARCHITECTURE.md, invariant 2) and a replay's create-only write finds an identical object.
 *
 * <pre>{"formatVersion":1,"pageSize":65536,"bytes":150000,"sha256":"&lt;shard&gt;","pages":["&lt;page 0&gt;",...]}</pre>
 */
public final class PageIndexCodec {

    private static final String WHAT = "page index";

    private PageIndexCodec() {
    }

    public static byte[] encode(PageIndex index) {
        ObjectNode root = Json.object();
        root.put("formatVersion", PageIndex.FORMAT_VERSION);
        root.put("pageSize", index.pageSize());
        root.put("bytes", index.shardBytes());
        root.put("sha256", index.shardSha256());
        ArrayNode pages = root.putArray("pages");
        index.pages().forEach(pages::add);
        return Json.compact(root).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a page index; {@code where} names it in errors. An unknown {@code formatVersion} is
     * refused (a reader must not misread a newer layout), unknown fields are ignored.
     *
     * @throws IllegalArgumentException for anything that is not a valid page index
     */
    public static PageIndex decode(byte[] json, String where) {
        String what = WHAT + " " + where;
        JsonNode root = Json.parseObject(json, what);
        int version = Json.intValue(root, "formatVersion", what);
        if (version != PageIndex.FORMAT_VERSION) {
            throw new IllegalArgumentException(what + " has formatVersion " + version + ", this reader understands only "
                    + PageIndex.FORMAT_VERSION + ": upgrade shardflow");
        }
        List<String> pages = new ArrayList<>();
        for (JsonNode page : Json.array(root, "pages", what)) {
            if (!page.isTextual()) {
                throw new IllegalArgumentException(what + ": 'pages' must hold strings");
            }
            pages.add(page.textValue());
        }
        try {
            return new PageIndex(Json.intValue(root, "pageSize", what), Json.longValue(root, "bytes", what),
                    Json.text(root, "sha256", what), pages);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
    }
}
