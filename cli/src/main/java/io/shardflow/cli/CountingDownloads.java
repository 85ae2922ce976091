package io.shardflow.cli;

import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.file.Path;

/**
 * Advances a {@link Progress} by one for every object downloaded: commands that walk a snapshot's
 * shards (verify, label counts) download each shard once, so downloads are the progress.
 */
final class CountingDownloads extends ForwardingObjectStore {

    private final Progress progress;

    CountingDownloads(ObjectStore delegate, Progress progress) {
        super(delegate);
        this.progress = progress;
    }

    @Override
    public void download(String key, Path target) {
        super.download(key, target);
        progress.advance(1);
    }
}
