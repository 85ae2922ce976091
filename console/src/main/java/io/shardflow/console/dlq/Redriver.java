package io.shardflow.console.dlq;

import io.shardflow.console.ConsoleSettings.KafkaSettings;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-publishes dead letters to the samples topic after their cause was fixed (a dataset version
 * created, a producer corrected): the original key, value and headers, plus headers naming the dead
 * letter and who redrove it. Each one is then recorded in the {@link RedriveAudit}, create-only, only
 * after the broker acknowledged it. A crash between the two republishes the record on the next run;
 * ingest-app's dedupe on (dataset, version, device, sample id) drops that copy within its window.
 */
public final class Redriver implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Redriver.class);

    /** What happened to one dead letter. */
    public enum Outcome { REDRIVEN, ALREADY_REDRIVEN, NO_VALUE }

    public record Result(DeadLetter letter, Outcome outcome, long targetOffset) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final String target;
    private final RedriveAudit audit;
    private final Clock clock;

    public Redriver(KafkaSettings kafka, String target, RedriveAudit audit, Clock clock) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings());
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.CLIENT_ID_CONFIG, "shardflow-redrive");
        this.producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
        this.target = target;
        this.audit = audit;
        this.clock = clock;
    }

    /** Redrives each letter in order; {@code again} redrives letters the audit says were redriven already. */
    public List<Result> redrive(List<DeadLetter> letters, String by, String note, boolean again) {
        List<Result> results = new ArrayList<>();
        for (DeadLetter letter : letters) {
            if (letter.value() == null) {
                results.add(new Result(letter, Outcome.NO_VALUE, -1));
                continue;
            }
            if (!again && audit.exists(letter)) {
                results.add(new Result(letter, Outcome.ALREADY_REDRIVEN, -1));
                continue;
            }
            RecordHeaders headers = new RecordHeaders();
            letter.headers().forEach(headers::add);
            headers.add(DlqHeaders.REDRIVEN_FROM, letter.address().getBytes(StandardCharsets.UTF_8));
            headers.add(DlqHeaders.REDRIVEN_BY, by.getBytes(StandardCharsets.UTF_8));
            RecordMetadata sent = send(new ProducerRecord<>(target, null, null, letter.key(), letter.value(), headers));
            PutOutcome recorded = audit.record(letter, new RedriveAudit.Entry(letter.address(), letter.reason(), by, note,
                    clock.instant(), target + "/" + sent.partition(), sent.offset()));
            log.info("Redrove dead letter {} ({}) to {}/{} at offset {} (audit {})", letter.address(), letter.reason(), target,
                    sent.partition(), sent.offset(), recorded);
            results.add(new Result(letter, Outcome.REDRIVEN, sent.offset()));
        }
        return results;
    }

    private RecordMetadata send(ProducerRecord<byte[], byte[]> record) {
        try {
            return producer.send(record).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while redriving", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the broker did not acknowledge the redriven record: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
