package io.shardflow.sink.spool;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpoolDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCreateTheDirectoryWhenMissing() {
        SpoolDirectory spools = SpoolDirectory.open(tmp.resolve("a/b/spool"));

        assertThat(spools.root()).isDirectory();
        assertThat(spools.fileCount()).isZero();
    }

    @Test
    void shouldRemoveFilesAbandonedByAPreviousRun() throws IOException {
        Path root = tmp.resolve("spool");
        SpoolDirectory previous = SpoolDirectory.open(root);
        previous.create(0, new ShardId("cams", "v1", 0, 1)).append(new byte[] {1, 2});
        previous.create(4, new ShardId("cams", "v1", 4, 9)).append(new byte[] {3});
        Files.writeString(root.resolve("stray.tmp"), "left behind");
        assertThat(previous.fileCount()).isEqualTo(3);

        SpoolDirectory next = SpoolDirectory.open(root);

        assertThat(next.fileCount()).isZero();
        assertThat(root).isDirectory();
        try (var children = Files.list(root)) {
            assertThat(children).as("partition sub-directories go too").isEmpty();
        }
    }

    @Test
    void shouldLeaveFilesOutsideTheSpoolDirectoryAlone() throws IOException {
        Path neighbour = Files.writeString(tmp.resolve("neighbour.txt"), "keep me");

        SpoolDirectory.open(tmp.resolve("spool"));

        assertThat(neighbour).exists();
    }

    @Test
    void shouldGiveEachShardAndPartitionItsOwnFile() {
        SpoolDirectory spools = SpoolDirectory.open(tmp.resolve("spool"));
        ShardSpool a = spools.create(0, new ShardId("cams", "v1", 0, 1));
        ShardSpool b = spools.create(0, new ShardId("cams", "v1", 0, 2));
        ShardSpool c = spools.create(0, new ShardId("cams", "v2", 0, 1));
        ShardSpool d = spools.create(1, new ShardId("cams", "v1", 0, 1));
        a.append(new byte[] {'a'});
        b.append(new byte[] {'b'});
        c.append(new byte[] {'c'});
        d.append(new byte[] {'d'});

        assertThat(a.readAll()).containsExactly(new byte[] {'a'});
        assertThat(b.readAll()).containsExactly(new byte[] {'b'});
        assertThat(c.readAll()).containsExactly(new byte[] {'c'});
        assertThat(d.readAll()).containsExactly(new byte[] {'d'});
        assertThat(spools.fileCount()).isEqualTo(4);

        a.close();
        assertThat(spools.fileCount()).isEqualTo(3);
    }

    @Test
    void shouldCountTheBytesOfOpenSpoolsForTheSpoolBudget() {
        SpoolDirectory spools = SpoolDirectory.open(tmp.resolve("spool"));
        ShardSpool a = spools.create(0, new ShardId("cams", "v1", 0, 1));
        ShardSpool b = spools.create(1, new ShardId("cams", "v1", 1, 1));
        a.append(new byte[10]);
        b.append(new byte[20]);

        assertThat(spools.bytes()).isEqualTo(10 + 4 + 20 + 4);

        a.close();
        a.close(); // closing twice must not release twice
        assertThat(spools.bytes()).isEqualTo(20 + 4);
        b.close();
        assertThat(spools.bytes()).isZero();
    }
}
