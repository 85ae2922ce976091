package io.shardflow.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;

class RequestFingerprintTest {

    private static final String PATH = "/v1/datasets/photos/versions/v1/samples";

    private static byte[] form(String boundary, String metadata, String picture) {
        return ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n"
                + metadata + "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
                + "Content-Type: image/jpeg\r\n\r\n" + picture + "\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String multipart(String boundary) {
        return "multipart/form-data; boundary=" + boundary;
    }

    @Property(tries = 200)
    void aFormRebuiltWithAnotherBoundaryIsTheSameRequest(@ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 70) String first,
            @ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 70) String second,
            @ForAll @StringLength(max = 200) String metadata, @ForAll @StringLength(max = 200) String picture) {
        // RFC 2046: the boundary occurs in no part; a client picks one that does not.
        org.assertj.core.api.Assumptions.assumeThat(metadata + picture).doesNotContain("--" + first).doesNotContain("--" + second);
        assertThat(RequestFingerprint.of(PATH, multipart(first), form(first, metadata, picture)))
                .isEqualTo(RequestFingerprint.of(PATH, multipart(second), form(second, metadata, picture)));
    }

    @Property(tries = 200)
    void aFormWithOtherContentIsAnotherRequest(@ForAll @AlphaChars @StringLength(min = 8, max = 40) String boundary,
            @ForAll @StringLength(max = 100) String picture, @ForAll @StringLength(max = 100) String other) {
        org.assertj.core.api.Assumptions.assumeThat(picture).isNotEqualTo(other);
        org.assertj.core.api.Assumptions.assumeThat(picture + other).doesNotContain("--" + boundary);
        assertThat(RequestFingerprint.of(PATH, multipart(boundary), form(boundary, "{}", picture)))
                .isNotEqualTo(RequestFingerprint.of(PATH, multipart(boundary), form(boundary, "{}", other)));
    }

    @Property(tries = 50)
    void anyOtherBodyIsHashedWhole(@ForAll @StringLength(max = 100) String json, @ForAll @StringLength(max = 100) String other) {
        org.assertj.core.api.Assumptions.assumeThat(json).isNotEqualTo(other);
        byte[] a = json.getBytes(StandardCharsets.UTF_8);
        byte[] b = other.getBytes(StandardCharsets.UTF_8);
        assertThat(RequestFingerprint.of(PATH, "application/json", a)).isEqualTo(RequestFingerprint.of(PATH, "application/json", a.clone()))
                .isNotEqualTo(RequestFingerprint.of(PATH, "application/json", b));
        assertThat(RequestFingerprint.of(PATH, "application/json", a)).isNotEqualTo(RequestFingerprint.of(PATH + "x", "application/json", a));
        assertThat(RequestFingerprint.of(PATH, "application/json", a)).isNotEqualTo(RequestFingerprint.of(PATH, "application/avro", a));
    }
}
