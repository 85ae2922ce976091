package io.shardflow.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

class ImagesGateTest {

    @TempDir
    Path dir;

    @Test
    void shouldWaitForTheWordTheImagesStageWritesLater() throws Exception {
        Path gate = dir.resolve("images.gate");
        CompletableFuture.runAsync(() -> {
            try {
                Files.writeString(gate, "ready\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS));

        assertThat(ImagesGate.awaitOutcome(gate, Duration.ofSeconds(30))).isEqualTo("ready");
    }

    @Test
    void shouldFailNamingTheFileWhenNoOutcomeComes() {
        Path gate = dir.resolve("never.gate");

        assertThatThrownBy(() -> ImagesGate.awaitOutcome(gate, Duration.ofSeconds(2)))
                .isInstanceOf(AssertionFailedError.class).hasMessageContaining(gate.toString());
    }
}
