package io.shardflow.cli.bench;

import io.shardflow.stack.TopicSpec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.RetriableException;

/**
 * One measured case on a shared stack: its own topics, consumer groups and dataset, so that cases
 * never see each other's records or offsets and each starts from empty topics.
 */
public record BenchCase(String name, int partitions) {

    public static final String VERSION = "v1";
    private static final Duration LEADER_WAIT = Duration.ofSeconds(30);

    public BenchCase {
        name = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    }

    public String samplesTopic() {
        return name + "-samples";
    }

    public String dlqTopic() {
        return name + "-dlq";
    }

    public String assignmentsTopic() {
        return name + "-assignments";
    }

    /** The raw baseline's topic: the same records, produced and consumed with nothing in between. */
    public String rawTopic() {
        return name + "-raw";
    }

    public String dataset() {
        return name;
    }

    public String ingestApplicationId() {
        return "shardflow-ingest-" + name;
    }

    public String sinkGroupId() {
        return "shardflow-shard-sink-" + name;
    }

    /** Creates the case's topics with the configs of the stack's pipeline topics (see {@link TopicSpec#DEFAULTS}). */
    public void createTopics(Admin admin) throws ExecutionException, InterruptedException {
        String samplesMax = String.valueOf(TopicSpec.SAMPLES_MAX_MESSAGE_BYTES);
        String derivedMax = String.valueOf(TopicSpec.DERIVED_MAX_MESSAGE_BYTES);
        admin.createTopics(List.of(
                new NewTopic(samplesTopic(), partitions, (short) 1)
                        .configs(Map.of("max.message.bytes", samplesMax, "message.timestamp.type", "LogAppendTime")),
                new NewTopic(rawTopic(), partitions, (short) 1)
                        .configs(Map.of("max.message.bytes", samplesMax, "message.timestamp.type", "LogAppendTime")),
                new NewTopic(dlqTopic(), 1, (short) 1).configs(Map.of("max.message.bytes", derivedMax)),
                new NewTopic(assignmentsTopic(), partitions, (short) 1).configs(Map.of("max.message.bytes", derivedMax))))
                .all().get();
        awaitLeaders(admin, List.of(samplesTopic(), rawTopic(), dlqTopic(), assignmentsTopic()));
    }

    /**
     * Waits until every partition of the new topics has a leader: an idempotent producer whose first
     * batch meets NOT_LEADER on a partition the broker is still creating can then be refused with
     * OUT_OF_ORDER_SEQUENCE until its batches expire (a P5 run lost two minutes that way). Until the
     * broker's metadata has the new topics, describing them fails with a retriable error (a loaded
     * machine's fresh test run met UnknownTopicOrPartition): that is asked again too.
     */
    static void awaitLeaders(Admin admin, List<String> topics) throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
        while (true) {
            if (allLed(admin, topics)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topics " + topics + " have partitions without a leader after " + LEADER_WAIT);
            }
            Thread.sleep(50);
        }
    }

    private static boolean allLed(Admin admin, List<String> topics) throws ExecutionException, InterruptedException {
        try {
            return admin.describeTopics(topics).allTopicNames().get().values().stream()
                    .flatMap(topic -> topic.partitions().stream())
                    .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false;
            }
            throw e;
        }
    }
}
