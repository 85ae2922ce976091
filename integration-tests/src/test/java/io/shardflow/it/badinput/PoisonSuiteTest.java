package io.shardflow.it.badinput;

import static io.shardflow.it.badinput.BadInputFixtures.good;
import static io.shardflow.it.badinput.BadInputFixtures.header;
import static io.shardflow.it.badinput.BadInputFixtures.mutate;
import static io.shardflow.it.badinput.BadInputFixtures.serialize;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.KafkaTopics;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile records of every kind the pipeline has been stopped by, or could be, interleaved with good
 * ones, on the real broker, registry and S3Proxy, with ingest-app and shard-sink as their own
 * processes at their default limits. Each hostile record must be dead-lettered with its reason, every
 * good record committed exactly once, and both processes must stay up throughout.
 */
class PoisonSuiteTest {

    private static final Instant YEAR_2099 = Instant.parse("2099-06-01T00:00:00Z");
    private static final Instant YEAR_1970 = Instant.parse("1970-01-02T00:00:00Z");
    private static final int FLOOD = 150;

    @TempDir
    Path work;

    /** One record to send and what must become of it: a dead letter with {@code reason}, or a committed row. */
    private record Planned(ProducerRecord<byte[], byte[]> record, String reason, String deviceId, String sampleId) {
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void shouldDeadLetterEveryHostileRecordCommitEveryGoodOneOnceAndKeepBothServicesUp() throws Exception {
        try (LocalStack stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")))) {
            StackEndpoints endpoints = StackEndpoints.of(stack);
            S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings());
            new DatasetCatalog(store).create(BadInputFixtures.spec());
            assertSamplesTopicRunsOnBrokerTimeWithAlignedLimits(endpoints);

            ServiceProcess ingest = ServiceProcess.start("ingest-app", IngestApp.class.getName(), PipelineSettings.ingest(endpoints, 10,
                    1 << 20, Duration.ofSeconds(1), work.resolve("ingest-state")), work.resolve("ingest"));
            ServiceProcess sink = ServiceProcess.start("shard-sink", ShardSinkApp.class.getName(),
                    PipelineSettings.sink(endpoints, work.resolve("sink-spool"), "poison-sink"), work.resolve("sink"));
            try (ingest; sink) {
                List<Planned> plan = plan(endpoints.registryUrl());
                new KafkaTopics(endpoints.bootstrapServers()).produce("samples", plan.stream().map(Planned::record).toList());
                List<Planned> hostile = plan.stream().filter(p -> p.reason() != null).toList();
                List<Planned> goodOnes = plan.stream().filter(p -> p.reason() == null).toList();

                List<ConsumerRecord<byte[], byte[]>> dead = new KafkaTopics(endpoints.bootstrapServers())
                        .readUntil("samples-dlq", r -> r.size() >= hostile.size() || !ingest.isAlive(), Duration.ofSeconds(120));
                ingest.requireAlive();
                List<SampleRow> committed = awaitCommitted(store, goodOnes.size(), ingest, sink);

                Map<String, Long> byReason = dead.stream().collect(Collectors.groupingBy(r -> header(r, "shardflow.dlq.reason"),
                        TreeMap::new, Collectors.counting()));
                System.out.printf("poison suite: %d records sent, %d hostile, %d dead-lettered %s, %d good, %d committed%n",
                        plan.size(), hostile.size(), dead.size(), byReason, goodOnes.size(), committed.size());

                assertThat(dead).as("one dead letter per hostile record, none for good ones").hasSize(hostile.size());
                for (ConsumerRecord<byte[], byte[]> letter : dead) {
                    String expected = new String(letter.key(), StandardCharsets.UTF_8).replaceAll("#.*", "");
                    assertThat(header(letter, "shardflow.dlq.reason")).as("reason of %s", new String(letter.key(), StandardCharsets.UTF_8))
                            .isEqualTo(expected);
                    assertThat(letter.headers().lastHeader("shardflow.dlq.detail").value().length).isLessThanOrEqualTo(1024);
                }
                assertThat(committed).extracting(r -> r.deviceId() + "/" + r.sampleId())
                        .as("every good record committed exactly once, and only those")
                        .doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(goodOnes.stream().map(p -> p.deviceId() + "/" + p.sampleId()).toList());
                assertThat(ingest.isAlive()).as("ingest-app stayed up").isTrue();
                assertThat(sink.isAlive()).as("shard-sink stayed up").isTrue();
            }
        }
    }

    /** Every hostile class, each after a good record; the duplicates share a partition with what they repeat. */
    private static List<Planned> plan(String registryUrl) {
        List<Planned> plan = new ArrayList<>();
        Map<String, Sample> hostile = new java.util.LinkedHashMap<>();
        hostile.put("INVALID_FIELD#traversal", mutate(good("traversal"), s -> s.setDataset("../etc")));
        hostile.put("INVALID_FIELD#version", mutate(good("version"), s -> s.setVersion("v1/../../x")));
        hostile.put("INVALID_FIELD#nul-sample-id", good("nul\u0000id"));
        hostile.put("INVALID_FIELD#bell-device-id", mutate(good("bell"), s -> s.setDeviceId("cam\u0007")));
        hostile.put("INVALID_FIELD#attribute-nul", mutate(good("attr"), s -> s.setAttributes(Map.of("site", "a\u0000b"))));
        hostile.put("ID_TOO_LONG#sample-id", good("s".repeat(300)));
        hostile.put("ID_TOO_LONG#device-id", mutate(good("long-device"), s -> s.setDeviceId("d".repeat(300))));
        hostile.put("TOO_MANY_ATTRIBUTES", mutate(good("many"), s -> s.setAttributes(attributes(1000))));
        hostile.put("ATTRIBUTE_KEY_TOO_LONG", mutate(good("long-key"), s -> s.setAttributes(Map.of("k".repeat(65), "v"))));
        hostile.put("ATTRIBUTE_VALUE_TOO_LONG#huge", mutate(good("huge-attr"), s -> s.setAttributes(Map.of("note", "x".repeat(900_000)))));
        // Over sample.max.bytes (1 MiB) but within the topic's 1 MiB + 64 KiB: its dead letter still fits the DLQ topic.
        hostile.put("OVERSIZE_SAMPLE#near-limit", mutate(good("near-limit"),
                s -> s.getTensors().get(0).setData(ByteBuffer.wrap(new byte[(1 << 20) + (48 << 10)]))));
        // Under the limit, but its name would make the detail header as big as the record, and the dead letter twice the limit.
        hostile.put("UNEXPECTED_TENSOR#huge-name", mutate(good("huge-name"), s -> s.setTensors(List.of(s.getTensors().get(0),
                s.getTensors().get(1), new Tensor("t".repeat(1_000_000), DType.UINT8, List.of(), ByteBuffer.wrap(new byte[1]))))));
        int n = 0;
        for (Map.Entry<String, Sample> entry : hostile.entrySet()) {
            plan.add(goodRecord(registryUrl, "good-" + n++, null, null));
            plan.add(new Planned(new ProducerRecord<>("samples", key(entry.getKey()), serialize(registryUrl, entry.getValue())),
                    entry.getKey().replaceAll("#.*", ""), null, null));
        }
        for (int i = 0; i < FLOOD; i++) {
            String dataset = i % 3 == 0 ? "flood-" + i : "no-such-dataset";
            plan.add(new Planned(new ProducerRecord<>("samples", key("UNKNOWN_DATASET#" + i),
                    serialize(registryUrl, mutate(good("flood-" + i), s -> s.setDataset(dataset)))), "UNKNOWN_DATASET", null, null));
            if (i % 10 == 0) {
                plan.add(goodRecord(registryUrl, "good-" + n++, null, null));
            }
        }
        // A device clock in 2099 must not move the window past what came before it, nor one in 1970 escape it.
        plan.add(goodRecord(registryUrl, "before-2099", 0, null));
        plan.add(goodRecord(registryUrl, "clock-2099", 0, YEAR_2099));
        plan.add(duplicate(registryUrl, "before-2099", "DUPLICATE_SAMPLE_ID#2099", 0, YEAR_2099));
        plan.add(goodRecord(registryUrl, "clock-1970", 0, YEAR_1970));
        plan.add(duplicate(registryUrl, "clock-1970", "DUPLICATE_SAMPLE_ID#1970", 0, YEAR_1970));
        // Two devices with the same id scheme: both samples are theirs to keep.
        plan.add(goodRecord(registryUrl, "frame-0001", 1, null));
        Sample other = mutate(good("frame-0001"), s -> s.setDeviceId("dev-b"));
        plan.add(new Planned(new ProducerRecord<>("samples", 1, null, key("frame-0001"), serialize(registryUrl, other)), null,
                "dev-b", "frame-0001"));
        return plan;
    }

    /** A good sample of device "dev"; {@code clock} is both its producedAt and the producer timestamp, as on a device. */
    private static Planned goodRecord(String registryUrl, String id, Integer partition, Instant clock) {
        Sample sample = mutate(good(id), s -> s.setProducedAt(clock == null ? Instant.now() : clock));
        return new Planned(new ProducerRecord<>("samples", partition, clock == null ? null : clock.toEpochMilli(), key(id),
                serialize(registryUrl, sample)), null, "dev", id);
    }

    private static Planned duplicate(String registryUrl, String id, String reasonKey, int partition, Instant clock) {
        Sample sample = mutate(good(id), s -> s.setProducedAt(clock));
        return new Planned(new ProducerRecord<>("samples", partition, clock.toEpochMilli(), key(reasonKey), serialize(registryUrl, sample)),
                "DUPLICATE_SAMPLE_ID", null, null);
    }

    private static Map<String, String> attributes(int count) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < count; i++) {
            map.put("a" + i, "v");
        }
        return map;
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertSamplesTopicRunsOnBrokerTimeWithAlignedLimits(StackEndpoints endpoints) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", endpoints.bootstrapServers()))) {
            ConfigResource samples = new ConfigResource(ConfigResource.Type.TOPIC, "samples");
            ConfigResource dlq = new ConfigResource(ConfigResource.Type.TOPIC, "samples-dlq");
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(samples, dlq)).all().get(30, TimeUnit.SECONDS);
            assertThat(configs.get(samples).get("message.timestamp.type").value()).isEqualTo("LogAppendTime");
            long samplesMax = Long.parseLong(configs.get(samples).get("max.message.bytes").value());
            long dlqMax = Long.parseLong(configs.get(dlq).get("max.message.bytes").value());
            assertThat(samplesMax).as("samples topic takes a sample of sample.max.bytes with its key and headers")
                    .isGreaterThan(1L << 20);
            assertThat(dlqMax).as("dead-letter topic takes any record of the samples topic plus our headers")
                    .isGreaterThan(samplesMax);
        }
    }

    /** Waits until the latest snapshot holds {@code expected} samples (or a service died), then reads every committed row. */
    private List<SampleRow> awaitCommitted(S3ObjectStore store, int expected, ServiceProcess ingest, ServiceProcess sink) throws Exception {
        CommitLog log = new CommitLog(store, BadInputFixtures.DATASET, BadInputFixtures.VERSION, Clock.systemUTC());
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (log.latest().sampleCount() < expected && System.nanoTime() < deadline) {
            ingest.requireAlive();
            sink.requireAlive();
            Thread.sleep(500);
        }
        // A little longer, so a good record committed twice would show.
        Thread.sleep(3_000);
        List<SampleRow> rows = new ArrayList<>();
        Set<String> keys = new java.util.HashSet<>();
        ShardReader reader = new ShardReader();
        for (ShardEntry shard : log.latest().shards()) {
            assertThat(keys.add(shard.objectKey())).isTrue();
            Path file = work.resolve("shard.h5");
            Files.deleteIfExists(file);
            store.download(shard.objectKey(), file);
            rows.addAll(reader.read(file).rows());
        }
        return rows;
    }
}
