package io.shardflow.gateway.http;

import io.shardflow.app.validate.RejectReason;
import io.shardflow.app.validate.Rejection;
import io.shardflow.app.validate.SampleValidator;
import io.shardflow.gateway.parse.AvroSamples;
import io.shardflow.gateway.parse.BadRequest;
import io.shardflow.gateway.parse.JsonSamples;
import io.shardflow.gateway.parse.MultipartSamples;
import io.shardflow.gateway.parse.ParsedSample;
import io.shardflow.gateway.parse.RequestContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * From a request body to samples with a verdict each: parsed by content type, checked that they
 * claim no other device, then validated by ingest-app's own {@link SampleValidator} (spec, ids,
 * attributes, tensors), so a sample refused here carries the reason code the dead-letter topic
 * would have given it, and one accepted here is one ingest-app accepts.
 */
final class SampleIntake {

    static final List<String> MEDIA_TYPES = List.of("application/json", "multipart/form-data", AvroSamples.MEDIA_TYPE);

    private final SampleValidator validator;
    private final JsonSamples json;
    private final MultipartSamples multipart;
    private final AvroSamples avro = new AvroSamples();

    SampleIntake(SampleValidator validator, JsonSamples json) {
        this.validator = validator;
        this.json = json;
        this.multipart = new MultipartSamples(json);
    }

    /** The samples and, per sample, why it is refused (null: accepted). */
    record Screened(List<ParsedSample> samples, List<Rejection> rejections) {
        boolean anyRejected() {
            return rejections.stream().anyMatch(r -> r != null);
        }

        boolean anyRejected(RejectReason reason) {
            return rejections.stream().anyMatch(r -> r != null && r.reason() == reason);
        }
    }

    /** The media type without parameters, lower case; null when it is none the API takes (415). */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return null;
        }
        String type = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return MEDIA_TYPES.contains(type) ? type : null;
    }

    Screened screen(byte[] body, String contentType, RequestContext context) {
        List<ParsedSample> samples = switch (mediaType(contentType)) {
            case "application/json" -> json.parse(body, context);
            case "multipart/form-data" -> multipart.parse(body, contentType, context);
            default -> avro.parse(body, context);
        };
        for (ParsedSample sample : samples) {
            if (sample.claimedDeviceId() != null && !sample.claimedDeviceId().equals(context.deviceId())) {
                throw new BadRequest(403, "DEVICE_MISMATCH", "sample '" + sample.sample().getSampleId() + "' names device '"
                        + sample.claimedDeviceId() + "', but the credentials are device '" + context.deviceId() + "'");
            }
        }
        List<Rejection> rejections = new ArrayList<>(samples.size());
        Set<String> ids = new HashSet<>();
        for (ParsedSample parsed : samples) {
            SampleValidator.Validated verdict = validator.validate(parsed.sample());
            if (verdict.isRejected()) {
                rejections.add(verdict.rejection());
            } else if (!ids.add(parsed.sample().getSampleId())) {
                rejections.add(Rejection.of(RejectReason.DUPLICATE_SAMPLE_ID, "sample_id '%s' appears twice in this request",
                        parsed.sample().getSampleId()));
            } else {
                rejections.add(null);
            }
        }
        return new Screened(samples, rejections);
    }
}
