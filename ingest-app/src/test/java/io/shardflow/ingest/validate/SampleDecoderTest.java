package io.shardflow.ingest.validate;

import io.shardflow.app.validate.RejectReason;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.microsoft.kiota.ApiException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SampleDecoderTest {

    private static final byte[] FRAMED = {0, 0, 0, 0, 1, 2, 3};

    @ParameterizedTest
    @ValueSource(ints = {401, 403, 429, 500, 503})
    void shouldTreatRegistryRefusalsAndOutagesAsUnavailableNotAsBadData(int status) {
        SampleDecoder decoder = new SampleDecoder(failingWith(status));

        assertThatThrownBy(() -> decoder.decode("samples", new RecordHeaders(), FRAMED))
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining(Integer.toString(status));
    }

    @Test
    void shouldDeadLetterARecordWhoseSchemaIsNotInTheRegistry() {
        DecodedSample decoded = new SampleDecoder(failingWith(404)).decode("samples", new RecordHeaders(), FRAMED);

        assertThat(decoded.isRejected()).isTrue();
        assertThat(decoded.rejection().reason()).isEqualTo(RejectReason.UNKNOWN_SCHEMA);
    }

    private static Deserializer<Object> failingWith(int status) {
        return (topic, data) -> {
            throw new ApiException("registry answered " + status) {
                {
                    setResponseStatusCode(status);
                }
            };
        };
    }
}
