package io.shardflow.dataset.pages;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What {@code dataset verify} checks of a shard's page index, against the shard file itself. */
public final class PageIndexCheck {

    private PageIndexCheck() {
    }

    /**
     * Problems of the page index {@code entry} names, given the shard's downloaded (and already
     * checked) bytes in {@code shardFile}; empty when it is sound or the entry names none.
     */
    public static List<String> problems(ObjectStore store, ShardEntry entry, Path shardFile) {
        if (!entry.hasPageIndex()) {
            return List.of();
        }
        String key = PageIndex.keyOf(entry.objectKey());
        Optional<byte[]> stored = store.get(key);
        if (stored.isEmpty()) {
            return List.of("shard " + entry.shardId() + " names page index " + key + ", which does not exist");
        }
        byte[] bytes = stored.get();
        String sha = ShardFileDigest.sha256Hex(bytes, 0, bytes.length);
        if (!sha.equals(entry.pageIndexSha256())) {
            return List.of("page index " + key + " has sha256 " + sha + ", log says " + entry.pageIndexSha256());
        }
        PageIndex index;
        try {
            index = PageIndexCodec.decode(bytes, key);
        } catch (IllegalArgumentException e) {
            return List.of(e.getMessage());
        }
        if (!index.shardSha256().equals(entry.sha256()) || index.shardBytes() != entry.bytes()) {
            return List.of("page index " + key + " describes a shard of " + index.shardBytes() + " bytes with sha256 "
                    + index.shardSha256() + ", log says " + entry.bytes() + " with " + entry.sha256());
        }
        List<String> actual = ShardFileDigest.of(shardFile, index.pageSize()).pageIndex().pages();
        for (int page = 0; page < actual.size(); page++) {
            if (!actual.get(page).equals(index.pages().get(page))) {
                return List.of("page index " + key + " gives page " + page + " sha256 " + index.pages().get(page)
                        + ", the shard's page has " + actual.get(page));
            }
        }
        return List.of();
    }
}
