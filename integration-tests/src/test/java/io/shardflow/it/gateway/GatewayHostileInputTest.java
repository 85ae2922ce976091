package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile or broken client sends, against the real gateway process on a real stack: each
 * gets its documented 4xx with a problem body, the samples topic gets nothing, and the gateway
 * keeps answering others. Small limits (64 KiB requests, 2 s idle timeout) keep it quick.
 */
class GatewayHostileInputTest {

    @TempDir
    static Path work;
    static GatewayFixture fixture;
    static String token;

    @BeforeAll
    static void start() {
        fixture = GatewayFixture.start(work, Map.of("request.max.bytes", "65536", "quota.bytes.burst", "65536",
                "http.idle.timeout.ms", "2000", "quota.auth.failures.per.minute", "5"));
        token = fixture.token("phone-1");
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    private GatewayClient phone() {
        return new GatewayClient(fixture.url(), token);
    }

    @Test
    void shouldAnswer401WithoutOrWithAForgedTokenAndRateLimitGuessing() throws Exception {
        // From 127.0.0.2: failures are counted per address, and the other tests' requests come from 127.0.0.1.
        assertThat(rawStatus("127.0.0.2", null)).isEqualTo(401);
        int throttled = 0;
        for (int i = 0; i < 8; i++) {
            int status = rawStatus("127.0.0.2", "sfgw_aaaaaaaaaaaaaaaa_" + "A".repeat(43));
            assertThat(status).isIn(401, 429);
            throttled += status == 429 ? 1 : 0;
        }
        assertThat(throttled).as("guesses past 5 a minute are refused before they are checked").isGreaterThanOrEqualTo(3);
        assertThat(rawStatus("127.0.0.2", token)).as("even a valid token, from the throttled address").isEqualTo(429);
        assertThat(rawStatus("127.0.0.2", token, "X-Forwarded-For: 10.9.8.7\r\n"))
                .as("a client naming another address gets nowhere while http.forwarded is off").isEqualTo(429);
        assertThat(phone().get(GatewayClient.samplesPath().replace("samples", "spec")).status()).as("other addresses are not").isEqualTo(200);
    }

    /** GET spec over a raw socket bound to {@code from}; the status code of the answer. */
    private static int rawStatus(String from, String bearer) throws java.io.IOException {
        return rawStatus(from, bearer, "");
    }

    private static int rawStatus(String from, String bearer, String extraHeaders) throws java.io.IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new java.net.InetSocketAddress(from, 0));
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", fixture.port), 5000);
            socket.setSoTimeout(10_000);
            send(socket, "GET " + GatewayClient.samplesPath().replace("samples", "spec") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + (bearer == null ? "" : "Authorization: Bearer " + bearer + "\r\n") + extraHeaders + "Connection: close\r\n\r\n");
            String statusLine = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }

    @Test
    void shouldRefuseAnotherDatasetAnotherDeviceAndUnknownNames() throws Exception {
        GatewayClient.Answer otherDataset = phone().get("/v1/datasets/secret/versions/v1/spec");
        assertProblem(otherDataset, 403, "DATASET_NOT_ALLOWED");
        ObjectNode claimsOther = GatewayClient.sample("a", 1).put("device_id", "phone-2");
        assertProblem(phone().postJson(claimsOther, null), 403, "DEVICE_MISMATCH");
        String wildcard = fixture.tokens().create("admin-phone", java.util.List.of("*"), null, null, null, "").token();
        GatewayClient any = new GatewayClient(fixture.url(), wildcard);
        assertProblem(any.get("/v1/datasets/nothing-here/versions/v1/spec"), 404, "UNKNOWN_DATASET");
        assertProblem(any.get("/v1/datasets/" + GatewayFixture.DATASET + "/versions/v9/spec"), 404, "UNKNOWN_VERSION");
        assertThat(any.get("/v1/datasets/..%2Fetc/versions/v1/spec").status()).isIn(400, 404);
        assertProblem(any.get("/v1/datasets/a%00b/versions/v1/spec"), 400, "MALFORMED_REQUEST");
    }

    @Test
    void shouldRefuseWrongMediaTypesAndMalformedBodies() throws Exception {
        assertProblem(phone().post("{}".getBytes(StandardCharsets.UTF_8), "text/plain", null), 415, "UNSUPPORTED_MEDIA_TYPE");
        assertProblem(phone().post("{\"sample_id\": \"a\", \"tens".getBytes(StandardCharsets.UTF_8), "application/json", null), 400,
                "MALFORMED_REQUEST");
        ObjectNode badBase64 = GatewayClient.sample("a", 1);
        ((ObjectNode) badBase64.get("tensors").get("label")).put("data", "not*base64");
        assertProblem(phone().postJson(badBase64, null), 400, "MALFORMED_REQUEST");
        assertProblem(phone().post(new byte[] {0, 1, 2, 3, (byte) 0xff}, "application/vnd.shardflow.sample+avro", null), 400,
                "MALFORMED_REQUEST");
        assertProblem(phone().post("--x\r\n".getBytes(StandardCharsets.UTF_8), "multipart/form-data; boundary=x", null), 400,
                "MALFORMED_REQUEST");
        // Empty and near-empty objects (a fuzzer's first guesses) name what is missing.
        for (String body : java.util.List.of("{}", "{\"samples\": []}", "{\"samples\": [{}]}", "{\"tensors\": {}}", "null", "[]")) {
            GatewayClient.Answer answer = phone().post(body.getBytes(StandardCharsets.UTF_8), "application/json", null);
            assertProblem(answer, 400, "MALFORMED_REQUEST");
        }
        assertThat(phone().post("{}".getBytes(StandardCharsets.UTF_8), "application/json", null).body().get("detail").asText())
                .contains("sample_id is required");
    }

    @Test
    void shouldAnswerSpecViolationsWithTheDeadLetterReasonCodes() throws Exception {
        ObjectNode wrongShape = GatewayClient.sample("a", 1);
        ((ObjectNode) wrongShape.get("tensors").get("image")).putArray("shape").add(3).add(4).add(16);
        ObjectNode controlChars = GatewayClient.sample("b\u0000c", 2);
        ObjectNode fine = GatewayClient.sample("c", 3);
        GatewayClient.Answer answer = phone().postJson(GatewayClient.batch(java.util.List.of(wrongShape, controlChars, fine)), null);

        assertThat(answer.status()).isEqualTo(422);
        assertThat(answer.body().at("/results/0/reason").asText()).isEqualTo("SHAPE_MISMATCH");
        assertThat(answer.body().at("/results/1/reason").asText()).isEqualTo("INVALID_FIELD");
        assertThat(answer.body().at("/results/2/status").asText()).isEqualTo("not_sent");
        assertThat(answer.body().get("accepted").asInt()).isZero();
    }

    @Test
    void shouldRefuseHugeLabelMapsAndOversizedBodies() throws Exception {
        ObjectNode labels = GatewayClient.sample("a", 1);
        ObjectNode attributes = labels.putObject("attributes");
        for (int i = 0; i < 40; i++) {
            attributes.put("k" + i, "v");
        }
        GatewayClient.Answer many = phone().postJson(labels, null);
        assertThat(many.status()).isEqualTo(422);
        assertThat(many.body().at("/results/0/reason").asText()).isEqualTo("TOO_MANY_ATTRIBUTES");

        assertProblem(phone().post(new byte[70_000], "application/json", null), 413, "REQUEST_TOO_LARGE");
    }

    @Test
    void shouldCutOffTruncatedAndSlowBodiesAndKeepServing() throws Exception {
        try (Socket truncated = new Socket("127.0.0.1", fixture.port)) {
            send(truncated, headers(1000) + "{\"sample_id\"");
        }
        try (Socket slow = new Socket("127.0.0.1", fixture.port)) {
            slow.setSoTimeout(30_000);
            OutputStream out = slow.getOutputStream();
            send(slow, headers(1000));
            long started = System.nanoTime();
            int firstAnswered = NOTHING_YET;
            for (int i = 0; i < 25 && firstAnswered == NOTHING_YET; i++) {
                try {
                    out.write('{');
                    out.flush();
                } catch (java.io.IOException e) {
                    firstAnswered = Math.max(-1, firstByte(slow)); // closed: whatever it answered first, if anything
                    break;
                }
                Thread.sleep(1000);
                firstAnswered = firstByte(slow); // before the next write, which would meet a closed connection
            }
            assertThat(firstAnswered).as("a body arriving at 1 byte/s is cut off").isNotEqualTo(NOTHING_YET);
            assertThat((System.nanoTime() - started) / 1e9).isLessThan(25);
            slow.setSoTimeout(10_000);
            String answer = (char) firstAnswered + new String(slow.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).as("the trickle is told why").startsWith("HTTP/1.1 408").contains("BODY_TOO_SLOW");
        }
    }

    @Test
    void shouldTakeABodyThatPausesWithinTheGraceOrComesLateAfterItsHeaders() throws Exception {
        byte[] body = GatewayClient.sample("late-" + System.nanoTime(), 5).toString().getBytes(StandardCharsets.UTF_8);
        // Half the body, then a 2 s pause: far under 1024 B/s over those 2 s, yet within the grace.
        assertThat(rawPost(body, body.length / 2, 2000)).startsWith("HTTP/1.1 200");
        // A tiny body 300 ms behind its headers is read and judged on what it says.
        assertThat(rawPost("{}".getBytes(StandardCharsets.UTF_8), 0, 300)).startsWith("HTTP/1.1 400").contains("sample_id is required");
        assertThat(phone().get(GatewayClient.samplesPath().replace("samples", "spec")).status()).isEqualTo(200);
        assertThat(fixture.gateway.isAlive()).isTrue();
    }

    /** POSTs {@code body}: its first {@code split} bytes with the headers, the rest after {@code pauseMillis}; the whole answer. */
    private String rawPost(byte[] body, int split, long pauseMillis) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", fixture.port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write((headers(body.length).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")).getBytes(StandardCharsets.UTF_8));
            out.write(body, 0, split);
            out.flush();
            Thread.sleep(pauseMillis);
            out.write(body, split, body.length - split);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static final int NOTHING_YET = -2;

    /** The first byte of the server's answer, -1 when it closed or reset the connection, {@link #NOTHING_YET} when it is silent. */
    private static int firstByte(Socket socket) throws java.io.IOException {
        InputStream in = socket.getInputStream();
        socket.setSoTimeout(10);
        try {
            return in.read();
        } catch (SocketTimeoutException e) {
            return NOTHING_YET;
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    private String headers(int contentLength) {
        return "POST " + GatewayClient.samplesPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    private static void send(Socket socket, String text) throws java.io.IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
    }

    private static void assertProblem(GatewayClient.Answer answer, int status, String code) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        assertThat(answer.raw().headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body().get("code").asText()).isEqualTo(code);
    }
}
