package io.shardflow.gateway.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class MultipartSamplesTest {

    private static final RequestContext CONTEXT = new RequestContext("photos", "v1", "phone-1", Instant.EPOCH, 10);
    private final MultipartSamples multipart = new MultipartSamples(new JsonSamples(10_000));

    @Test
    void shouldTakeATensorsBytesFromItsPart() {
        byte[] jpeg = {(byte) 0xFF, (byte) 0xD8, 1, 2, 3, (byte) 0xFF, (byte) 0xD9};
        List<ParsedSample> samples = multipart.parse(body(jpeg, "frame"), "multipart/form-data; boundary=XyZ", CONTEXT);

        var tensor = samples.get(0).sample().getTensors().get(0);
        byte[] read = new byte[tensor.getData().remaining()];
        tensor.getData().duplicate().get(read);
        assertThat(read).containsExactly(jpeg);
    }

    @Test
    void shouldRefuseAPartNoTensorNames() {
        byte[] body = body(new byte[] {1}, "other");

        assertThatThrownBy(() -> multipart.parse(body, "multipart/form-data; boundary=XyZ", CONTEXT)).isInstanceOf(BadRequest.class)
                .hasMessageContaining("names part 'frame', which the request does not have");
    }

    private static byte[] body(byte[] jpeg, String partName) {
        String head = "--XyZ\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n"
                + "{\"sample_id\":\"a\",\"tensors\":{\"frame\":{\"dtype\":\"bytes\",\"part\":\"frame\"}}}\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"" + partName + "\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n";
        byte[] start = head.getBytes(StandardCharsets.UTF_8);
        byte[] end = "\r\n--XyZ--\r\n".getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[start.length + jpeg.length + end.length];
        System.arraycopy(start, 0, all, 0, start.length);
        System.arraycopy(jpeg, 0, all, start.length, jpeg.length);
        System.arraycopy(end, 0, all, start.length + jpeg.length, end.length);
        return all;
    }
}
