package io.shardflow.edge.queue;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.schemas.Sample;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code EdgePublisher} with the Python SDK's offline queue: {@link #send} returns once the sample is
 * durable on the device, a background thread delivers the queue in order while the broker answers
 * and marks an entry done only once acknowledged. Records are those of {@code EdgePublisher} (the
 * Apicurio serializer's framing, content id included) plus the headers {@code shardflow.queue} and
 * {@code shardflow.seq}, by which ingest-app drops any resend however late (docs/EDGE-QUEUE.md). The
 * queue directory is the same format the Python SDK writes.
 */
public final class QueuedPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueuedPublisher.class);
    private static final long MAX_IN_FLIGHT_BYTES = 16L << 20;

    private final DurableQueue queue;
    private final String topic;
    private final Supplier<Producer<byte[], byte[]>> producers;
    private final AvroKafkaSerializer<Sample> serializer;
    private final Map<Long, Integer> inFlight = new ConcurrentHashMap<>();
    /** seq to when this process first produced it ({@code nanoTime}), until acknowledged: for the resend horizon. */
    private final Map<Long, Long> firstProduced = new ConcurrentHashMap<>();
    private final ResendHorizon horizon;
    private final LongSupplier nanoTime;
    private final Thread sender;
    private volatile boolean stopping;
    private volatile boolean gap;
    private volatile boolean overdue;
    private volatile Throwable fatal;

    QueuedPublisher(DurableQueue queue, String topic, Supplier<Producer<byte[], byte[]>> producers, AvroKafkaSerializer<Sample> serializer) {
        this(queue, topic, producers, serializer, Clock.systemUTC(), System::nanoTime);
    }

    /** @param clock the device clock entries' ages are read by; {@code nanoTime} times what is in flight */
    QueuedPublisher(DurableQueue queue, String topic, Supplier<Producer<byte[], byte[]>> producers, AvroKafkaSerializer<Sample> serializer,
                    Clock clock, LongSupplier nanoTime) {
        this.queue = queue;
        this.topic = topic;
        this.producers = producers;
        this.serializer = serializer;
        this.nanoTime = nanoTime;
        this.horizon = new ResendHorizon(queue, queue.settings().resendHorizonMs(), clock, nanoTime);
        this.sender = new Thread(this::deliver, "shardflow-edge-sender");
        sender.setDaemon(true);
        sender.start();
    }

    /** @param overrides producer and serde settings over the defaults (security settings among them) */
    public static QueuedPublisher create(String bootstrapServers, String registryUrl, String topic, Path queueDir,
                                         DurableQueue.Settings settings, Map<String, Object> overrides) throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // Never give up on a record: one given up on may still have been written, and resending it after
        // later ones would break the per-partition order ingest-app's sequence check relies on.
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(SerdeConfig.REGISTRY_URL, registryUrl);
        props.put(SerdeConfig.AUTO_REGISTER_ARTIFACT, true);
        props.putAll(overrides);
        AvroKafkaSerializer<Sample> serializer = new AvroKafkaSerializer<>();
        serializer.configure(props, false);
        DurableQueue queue = new DurableQueue(queueDir, settings, Clock.systemUTC());
        return new QueuedPublisher(queue, topic, () -> new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer()),
                serializer);
    }

    /** Queues the sample durably and returns its id; throws with nothing queued if it cannot. */
    public String send(Sample sample) throws IOException, InterruptedException {
        if (fatal != null) {
            throw new IllegalStateException("edge sender stopped: " + fatal, fatal);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(body, null);
        new SpecificDatumWriter<Sample>(Sample.getClassSchema()).write(sample, encoder);
        encoder.flush();
        queue.append(List.<byte[][]>of(new byte[][] {sample.getSampleId().getBytes(StandardCharsets.UTF_8), body.toByteArray()}));
        return sample.getSampleId();
    }

    /** Waits until every queued entry is acknowledged; returns how many are not. */
    public long flush(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (queue.pending() > 0 && fatal == null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return queue.pending();
    }

    public DurableQueue queue() {
        return queue;
    }

    /** Entries set aside by the resend horizon since start (in {@code expired/} of the queue directory). */
    public long expired() {
        return horizon.expired();
    }

    private void deliver() {
        int contentId = -1;
        while (!stopping) {
            Producer<byte[], byte[]> producer = producers.get();
            gap = false;
            overdue = false;
            long nextOverdueCheck = nanoTime.getAsLong();
            try (QueueReader reader = new QueueReader(queue, queue.doneSeq() + 1)) {
                while (!stopping && !gap) {
                    if (nanoTime.getAsLong() - nextOverdueCheck >= 0) {
                        nextOverdueCheck = nanoTime.getAsLong() + 1_000_000_000L;
                        if (horizon.overdue(inFlight.keySet(), firstProduced)) {
                            overdue = true;
                            gap = true;
                            break;
                        }
                    }
                    if (inFlight.values().stream().mapToLong(Integer::longValue).sum() > MAX_IN_FLIGHT_BYTES) {
                        Thread.sleep(5);
                        continue;
                    }
                    Optional<SegmentFormat.Frame> frame = reader.next(50);
                    if (frame.isEmpty()) {
                        continue;
                    }
                    if (!horizon.admit(frame.get())) {
                        firstProduced.remove(frame.get().seq());
                        continue;
                    }
                    byte[] body = frame.get().value();
                    while (contentId < 0 && !stopping) {
                        try {
                            contentId = contentId(body);
                        } catch (IllegalStateException e) {
                            throw e; // framing this client cannot send: stop, visibly
                        } catch (RuntimeException e) {
                            LOG.info("edge sender: registry not reachable ({}); retrying", e.toString());
                            Thread.sleep(1000); // an outage: the registry is asked again
                        }
                    }
                    if (contentId < 0) {
                        break; // stopping before the registry answered: nothing framed without its content id
                    }
                    produce(producer, frame.get().seq(), frame.get().key(), frame(contentId, body));
                }
                while (!inFlight.isEmpty() && !stopping && !overdue) {
                    Thread.sleep(10); // a new session never races the old one's deliveries
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | IOException | Error e) {
                fatal = e;
                LOG.error("edge sender stopped", e);
                return;
            } finally {
                // overdue: abandoned at once; the broker holds a prefix of it per partition, and the next
                // session sets it aside rather than send it again
                producer.close(java.time.Duration.ofSeconds(overdue ? 0 : stopping ? 1 : 30));
                inFlight.clear();
            }
        }
    }

    /** The content id the Apicurio serializer frames with, checked to frame the very body we stored. */
    private int contentId(byte[] body) throws IOException {
        Sample sample = new SpecificDatumReader<Sample>(Sample.getClassSchema()).read(null, DecoderFactory.get().binaryDecoder(body, null));
        byte[] framed = serializer.serialize(topic, sample);
        if (framed[0] != 0 || !Arrays.equals(Arrays.copyOfRange(framed, 5, framed.length), body)) {
            throw new IllegalStateException("the registry serde frames samples differently from 0x00 + 4-byte content id + body");
        }
        return ByteBuffer.wrap(framed, 1, 4).getInt();
    }

    private static byte[] frame(int contentId, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(contentId).put(body).array();
    }

    private void produce(Producer<byte[], byte[]> producer, long seq, byte[] key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("shardflow.queue", queue.queueId().getBytes(StandardCharsets.US_ASCII));
        headers.add("shardflow.seq", Long.toString(seq).getBytes(StandardCharsets.US_ASCII));
        inFlight.put(seq, value.length);
        firstProduced.putIfAbsent(seq, nanoTime.getAsLong());
        producer.send(new ProducerRecord<>(topic, null, key, value, headers), (metadata, error) -> {
            inFlight.remove(seq);
            if (error == null) {
                firstProduced.remove(seq);
                queue.ack(seq);
            } else if (error instanceof RecordTooLargeException || error instanceof InvalidRecordException) {
                LOG.error("edge sender: the broker refuses sample {} ({}); it cannot be delivered", new String(key, StandardCharsets.UTF_8),
                        error.toString());
                queue.ack(seq);
            } else {
                LOG.warn("edge sender: delivery of seq {} failed ({}); resending from the first entry not done", seq, error.toString());
                gap = true;
            }
        });
    }

    @Override
    public void close() throws IOException {
        stopping = true;
        try {
            sender.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        serializer.close();
        queue.close();
    }

}
