package io.shardflow.sink.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardSpoolTest {

    @TempDir
    Path tmp;

    @Test
    void shouldReturnEveryRecordInArrivalOrder() {
        Random random = new Random(7);
        List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] record = new byte[random.nextInt(5000)]; // includes empty records; some span buffer boundaries
            random.nextBytes(record);
            records.add(record);
        }
        ShardSpool spool = new ShardSpool(tmp.resolve("p0/a.spool"));

        records.forEach(spool::append);

        assertThat(spool.readAll()).containsExactlyElementsOf(records);
        assertThat(spool.records()).isEqualTo(200);
        assertThat(spool.bytes()).isEqualTo(records.stream().mapToLong(r -> r.length + 4L).sum());
    }

    @Test
    void shouldKeepAppendingAfterARead() {
        ShardSpool spool = new ShardSpool(tmp.resolve("a.spool"));
        spool.append(new byte[] {1});
        assertThat(spool.readAll()).containsExactly(new byte[] {1});

        spool.append(new byte[] {2, 2});

        assertThat(spool.readAll()).containsExactly(new byte[] {1}, new byte[] {2, 2});
    }

    @Test
    void shouldStartEmptyOverAStaleFileOfTheSameName() throws IOException {
        Path file = tmp.resolve("a.spool");
        Files.write(file, new byte[] {0, 0, 0, 3, 9, 9, 9, 0, 0, 0, 1, 9});

        ShardSpool spool = new ShardSpool(file);
        spool.append(new byte[] {5});

        assertThat(spool.readAll()).containsExactly(new byte[] {5});
    }

    @Test
    void shouldDeleteItsFileOnClose() {
        Path file = tmp.resolve("p3/a.spool");
        ShardSpool spool = new ShardSpool(file);
        spool.append(new byte[] {1, 2, 3});
        spool.readAll();
        assertThat(file).exists();

        spool.close();

        assertThat(file).doesNotExist();
    }

    @Test
    void shouldNameTheFileWhenItWasTruncatedUnderneath() throws IOException {
        Path file = tmp.resolve("a.spool");
        ShardSpool spool = new ShardSpool(file);
        spool.append(new byte[100]);
        spool.append(new byte[100]);
        spool.readAll();
        Files.write(file, new byte[] {0, 0, 0, 100, 1});

        assertThatThrownBy(spool::readAll)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("shorter than its 2 records");
    }
}
