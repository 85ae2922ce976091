package io.shardflow.ingest.validate;

import io.shardflow.app.validate.RejectReason;
import io.shardflow.schemas.Sample;
import com.microsoft.kiota.ApiException;
import io.apicurio.registry.rest.client.models.ProblemDetails;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import org.apache.avro.AvroTypeException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns the raw bytes of the samples topic into a {@link Sample} with the Apicurio Avro
 * deserializer, sorting every failure into a dead-letter reason. Failures that are not the record's
 * fault (registry down) are thrown as {@link RegistryUnavailableException} instead.
 */
public final class SampleDecoder {

    /** Apicurio 3.x frames a payload as a zero magic byte and a 4-byte content id, then Avro binary. */
    private static final int HEADER_LENGTH = 5;

    private final Deserializer<Object> deserializer;

    public SampleDecoder(Deserializer<Object> deserializer) {
        this.deserializer = deserializer;
    }

    public DecodedSample decode(String topic, Headers headers, byte[] value) {
        if (value == null) {
            return DecodedSample.rejected(RejectReason.NULL_VALUE, "record value is null (tombstone)");
        }
        if (value.length < HEADER_LENGTH || value[0] != 0) {
            return DecodedSample.rejected(RejectReason.NOT_AVRO,
                    "value of " + value.length + " bytes does not start with the registry magic byte 0 and a schema id");
        }
        Object decoded;
        try {
            decoded = deserializer.deserialize(topic, headers, value);
        } catch (RuntimeException e) {
            return classify(e);
        }
        if (decoded instanceof Sample sample) {
            return DecodedSample.of(sample);
        }
        String found = decoded == null ? "null" : decoded.getClass().getName();
        if (decoded instanceof org.apache.avro.generic.GenericContainer container) {
            found = container.getSchema().getFullName();
        }
        return DecodedSample.rejected(RejectReason.INCOMPATIBLE_SCHEMA,
                "record is of schema " + found + ", expected " + Sample.getClassSchema().getFullName());
    }

    private static DecodedSample classify(RuntimeException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ApiException api) {
                int status = api.getResponseStatusCode();
                if (status == 404) {
                    return DecodedSample.rejected(RejectReason.UNKNOWN_SCHEMA, "schema id is not in the registry: " + registryDetail(api));
                }
                // 401/403: our credentials are wrong or expired, which no record can be blamed for.
                if (status == 0 || status >= 500 || status == 429 || status == 401 || status == 403) {
                    throw new RegistryUnavailableException("schema registry answered " + status + ": " + registryDetail(api), failure);
                }
                return DecodedSample.rejected(RejectReason.UNDECODABLE, "schema registry answered " + status + ": " + registryDetail(api));
            }
            if (cause instanceof ConnectException || cause instanceof HttpTimeoutException
                    || cause instanceof java.net.SocketTimeoutException) {
                throw new RegistryUnavailableException("schema registry unreachable: " + cause.getMessage(), failure);
            }
            String text = (cause.getClass().getSimpleName() + " " + cause.getMessage()).toLowerCase(Locale.ROOT);
            if (text.contains("not found") || text.contains("notfound") || text.contains("404")) {
                return DecodedSample.rejected(RejectReason.UNKNOWN_SCHEMA, "schema id is not in the registry: " + summary(cause));
            }
            if (cause instanceof IllegalArgumentException && String.valueOf(cause.getMessage()).contains("writer's schema")) {
                // Avro's specific reader found no class for the writer's record name: another schema entirely.
                return DecodedSample.rejected(RejectReason.INCOMPATIBLE_SCHEMA, summary(cause));
            }
            if (cause instanceof AvroTypeException) {
                boolean missing = String.valueOf(cause.getMessage()).contains("missing required field");
                return DecodedSample.rejected(missing ? RejectReason.MISSING_FIELD : RejectReason.INCOMPATIBLE_SCHEMA, summary(cause));
            }
            if (cause instanceof IOException && !(cause instanceof java.io.EOFException)
                    && cause.getClass().getName().startsWith("java.net")) {
                throw new RegistryUnavailableException("schema registry I/O failure: " + cause.getMessage(), failure);
            }
        }
        return DecodedSample.rejected(RejectReason.UNDECODABLE, summary(failure));
    }

    private static String registryDetail(ApiException api) {
        if (api instanceof ProblemDetails problem) {
            return problem.getTitle() + (problem.getDetail() == null ? "" : " (" + problem.getDetail() + ")");
        }
        return summary(api);
    }

    private static String summary(Throwable t) {
        String message = t.getMessage() == null ? "" : t.getMessage();
        if (message.length() > 300) {
            message = message.substring(0, 300) + "...";
        }
        return t.getClass().getSimpleName() + ": " + message;
    }
}
