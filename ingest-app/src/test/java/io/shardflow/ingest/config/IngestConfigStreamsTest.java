package io.shardflow.ingest.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The Kafka Streams settings ingest-app starts with, and which of them an operator may change. */
class IngestConfigStreamsTest {

    private static final String PRODUCER_LINGER = StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG);

    private static Map<String, String> required() {
        return new HashMap<>(Map.of(IngestConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9092", IngestConfig.REGISTRY_URL, "http://r",
                "s3.endpoint", "http://127.0.0.1:9000", "s3.bucket", "b"));
    }

    @Test
    void shouldLingerNoLongerThanATenthOfTheCommitIntervalSoReadersWaitForNothingNew() {
        Properties props = new IngestConfig(required()).streamsProperties();

        long linger = Long.parseLong(props.get(PRODUCER_LINGER).toString());
        long commit = Long.parseLong(props.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG).toString());
        assertThat(linger).isPositive().isLessThanOrEqualTo(commit / 10);
        assertThat(props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    }

    @Test
    void shouldLetAnOperatorChangeTheLingerButNeverTheGuarantee() {
        Map<String, String> settings = required();
        settings.put(IngestConfig.KAFKA_PREFIX + PRODUCER_LINGER, "5");
        settings.put(IngestConfig.KAFKA_PREFIX + StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);

        Properties props = new IngestConfig(settings).streamsProperties();

        assertThat(props.get(PRODUCER_LINGER).toString()).isEqualTo("5");
        assertThat(props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    }
}
