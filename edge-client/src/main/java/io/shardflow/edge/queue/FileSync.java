package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;

/** How a segment's data is made durable: {@link #DATA} ({@code fdatasync}); tests inject failures (EIO). */
@FunctionalInterface
interface FileSync {

    FileSync DATA = channel -> channel.force(false);

    void force(FileChannel channel) throws IOException;
}
