package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.console.dlq.DeadLetter;
import io.shardflow.console.dlq.DeadLetterReader;
import io.shardflow.console.dlq.DlqHeaders;
import io.shardflow.console.dlq.RedriveAudit;
import io.shardflow.console.dlq.Redriver;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redrive on the real broker and S3Proxy: the chosen dead letters go back to {@code samples} byte for byte
 * with headers naming where they came from and who sent them, each is audited create-only in the
 * bucket, a second redrive of the same letters publishes nothing, and the console marks them.
 */
class RedriveTest {

    @TempDir
    static java.nio.file.Path cache;

    @Test
    void shouldRepublishTheChosenDeadLettersOnceAuditedAndMarkedInTheConsole() throws Exception {
        ConsoleStack data = ConsoleStack.get();
        ConsoleSettings.KafkaSettings kafka = ConsoleSettings.KafkaSettings.defaults(data.endpoints.bootstrapServers(), Map.of());
        List<DeadLetter> letters;
        try (DeadLetterReader reader = new DeadLetterReader(kafka, "samples-dlq", Duration.ofSeconds(30))) {
            letters = reader.newest(100).stream().filter(l -> l.reason().equals("UNKNOWN_DATASET")).limit(2).toList();
        }
        assertThat(letters).hasSize(2);
        Map<TopicPartition, Long> before = ends(data, "samples");
        RedriveAudit audit = new RedriveAudit(data.store);

        List<Redriver.Result> first;
        List<Redriver.Result> second;
        try (Redriver redriver = new Redriver(kafka, "samples", audit, Clock.systemUTC())) {
            first = redriver.redrive(letters, "ana", "created ghost/v9", false);
            second = redriver.redrive(letters, "ana", "again by mistake", false);
        }
        List<ConsumerRecord<byte[], byte[]>> republished = readFrom(data, before);

        assertThat(first).extracting(Redriver.Result::outcome).containsOnly(Redriver.Outcome.REDRIVEN);
        assertThat(second).extracting(Redriver.Result::outcome).containsOnly(Redriver.Outcome.ALREADY_REDRIVEN);
        assertThat(republished).hasSize(2);
        for (int i = 0; i < 2; i++) {
            ConsumerRecord<byte[], byte[]> record = republished.get(i);
            DeadLetter letter = letters.stream().filter(l -> Arrays.equals(l.value(), record.value())).findFirst().orElseThrow();
            assertThat(new String(record.headers().lastHeader(DlqHeaders.REDRIVEN_FROM).value(), StandardCharsets.UTF_8))
                    .isEqualTo(letter.address());
            assertThat(new String(record.headers().lastHeader(DlqHeaders.REDRIVEN_BY).value(), StandardCharsets.UTF_8)).isEqualTo("ana");
            assertThat(record.headers().lastHeader(DlqHeaders.REASON)).as("the dead-letter headers stay behind").isNull();
            String auditJson = new String(data.store.get(RedriveAudit.key(letter)).orElseThrow(), StandardCharsets.UTF_8);
            assertThat(auditJson).contains("\"by\" : \"ana\"", "created ghost/v9", "\"targetOffset\" : " + record.offset())
                    .doesNotContain("again by mistake");
        }
        try (ConsoleServer console = data.console(cache, Optional.empty())) {
            String page = new ConsoleHttp(console.port()).page("/dead-letters");
            assertThat(page.split("badge ok\">redriven<", -1)).hasSize(3);
        }
    }

    private static Map<TopicPartition, Long> ends(ConsoleStack data, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(data)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            return consumer.endOffsets(partitions);
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readFrom(ConsoleStack data, Map<TopicPartition, Long> from) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(data)) {
            consumer.assign(from.keySet());
            from.forEach(consumer::seek);
            Map<TopicPartition, Long> end = consumer.endOffsets(from.keySet());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue()) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(ConsoleStack data) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, data.endpoints.bootstrapServers());
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
