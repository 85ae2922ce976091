package io.shardflow.gateway.parse;

import io.shardflow.schemas.Sample;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.SystemLimitException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * Reads the binary wire format: one or more Avro binary {@code Sample} datums (the project's
 * {@code Sample.avsc}, the same record the samples topic carries), back to back, without the
 * registry's 5-byte frame, whose schema id a device cannot know. The sample's dataset and version
 * must be the path's; its device id, if any, the authenticated one.
 *
 * <p>Avro's reader trusts the lengths a body claims; {@link #limitAvroAllocations} makes it refuse
 * claims larger than a request may be, so a forged length cannot make it allocate gigabytes.
 */
public final class AvroSamples {

    public static final String MEDIA_TYPE = "application/vnd.shardflow.sample+avro";

    private final SpecificDatumReader<Sample> reader = new SpecificDatumReader<>(Sample.class);

    /**
     * Caps Avro's byte, string and collection lengths for the whole JVM; Avro reads these system
     * properties once, so the gateway calls this first thing at start.
     */
    public static void limitAvroAllocations(long maxRequestBytes) {
        String max = Long.toString(Math.min(Integer.MAX_VALUE - 8, maxRequestBytes));
        System.setProperty(SystemLimitException.MAX_BYTES_LENGTH_PROPERTY, max);
        System.setProperty(SystemLimitException.MAX_STRING_LENGTH_PROPERTY, max);
        System.setProperty(SystemLimitException.MAX_COLLECTION_LENGTH_PROPERTY, max);
    }

    public List<ParsedSample> parse(byte[] body, RequestContext context) {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, null);
        List<ParsedSample> samples = new ArrayList<>();
        try {
            while (!decoder.isEnd()) {
                if (samples.size() == context.maxSamples()) {
                    throw new BadRequest(413, "TOO_MANY_SAMPLES", "the request holds more than " + context.maxSamples() + " samples");
                }
                Sample sample = reader.read(null, decoder);
                String claimed = sample.getDeviceId() == null || sample.getDeviceId().isEmpty() ? null : sample.getDeviceId();
                if (!context.dataset().equals(sample.getDataset()) || !context.version().equals(sample.getVersion())) {
                    throw new BadRequest(400, "MALFORMED_REQUEST", "sample " + samples.size() + " names " + sample.getDataset() + "/"
                            + sample.getVersion() + " but was posted to " + context.dataset() + "/" + context.version());
                }
                sample.setDeviceId(context.deviceId());
                samples.add(new ParsedSample(sample, claimed));
            }
        } catch (BadRequest e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // Garbage makes Avro's reader throw whatever it meets first (a length past the VM limit is an
            // UnsupportedOperationException): every one of them means the body is not a Sample.
            throw BadRequest.malformed("sample " + samples.size() + " is not an Avro binary Sample: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        if (samples.isEmpty()) {
            throw BadRequest.malformed("the body holds no sample");
        }
        return samples;
    }
}
