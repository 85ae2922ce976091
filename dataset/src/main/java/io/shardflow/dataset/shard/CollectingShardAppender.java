package io.shardflow.dataset.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** An appender for a writer that needs every row at once: it keeps them and hands the list over on finish. */
final class CollectingShardAppender implements ShardAppender {

    private final Consumer<List<SampleRow>> writeAll;
    private List<SampleRow> rows = new ArrayList<>();

    CollectingShardAppender(Consumer<List<SampleRow>> writeAll) {
        this.writeAll = writeAll;
    }

    @Override
    public void append(SampleRow row) {
        if (rows == null) {
            throw new IllegalStateException("the shard is already finished");
        }
        rows.add(row);
    }

    @Override
    public void finish() {
        if (rows == null) {
            throw new IllegalStateException("the shard is already finished");
        }
        List<SampleRow> all = rows;
        rows = null;
        writeAll.accept(all);
    }

    @Override
    public void close() {
        rows = null;
    }
}
