package io.shardflow.console;

import static io.shardflow.console.ConsoleStack.DATASET;
import static io.shardflow.console.ConsoleStack.VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.console.web.Html;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's pages over HTTP against a real stack whose data came through the real pipeline
 * (ConsoleStack): what each view shows, that hostile labels, device ids, attributes and descriptions
 * come out escaped, that URL names cannot reach outside a dataset, ETags, statistics cached per shard.
 */
class ConsoleServerTest {

    private static final String V = "/datasets/" + DATASET + "/" + VERSION;

    @TempDir
    static Path cache;
    private static ConsoleStack data;
    private static ConsoleServer console;
    private static ConsoleHttp http;

    @BeforeAll
    static void start() throws Exception {
        data = ConsoleStack.get();
        console = data.console(cache, Optional.empty());
        http = new ConsoleHttp(console.port());
    }

    @AfterAll
    static void stop() {
        if (console != null) {
            console.close();
        }
    }

    private static Snapshot latest() {
        return new CommitLog(data.store, DATASET, VERSION, Clock.systemUTC(), 0).latest();
    }

    @Test
    void shouldListTheDatasetAndShowTheVersionWithItsGrowthTagsAndEscapedDescription() throws Exception {
        Snapshot latest = latest();

        String index = http.page("/");
        String version = http.page(V);

        assertThat(index).contains(">cams<", ">v1<", ">" + latest.sampleCount() + "<");
        assertThat(version).contains("front cameras &lt;i&gt;and&lt;/i&gt; friends").doesNotContain("<i>and</i>")
                .contains("<svg class=\"chart\"", "first-light", "frame", "image/jpeg", "16x16x3")
                .contains(">delete<", Html.text(ConsoleStack.DELETE_REASON));
        assertThat(version).containsPattern(">" + latest.snapshotId() + "</a></td><td>delete<");
    }

    @Test
    void shouldRenderHostileLabelsDeviceIdsAndAttributesInert() throws Exception {
        long snapshot = latest().snapshotId();
        HttpResponse<String> grid = http.get(V + "/snapshots/" + snapshot + "/samples?size=200");
        String sample = http.page(ConsoleHttp.href(grid.body(), "href=\"([^\"]+)\"><img loading=\"lazy\" alt=\"s-0\""));

        assertThat(grid.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp ->
                assertThat(csp).contains("script-src 'self'").doesNotContain("unsafe-inline"));
        for (String page : List.of(grid.body(), sample)) {
            assertThat(page).doesNotContain("<script>window.pwned", "<img src=x", "<svg onload").doesNotContain("onerror=\"window");
        }
        assertThat(grid.body()).contains(Html.text(ConsoleStack.HOSTILE_LABEL), Html.text(Html.shorten(ConsoleStack.HOSTILE_DEVICE, 40)));
        assertThat(sample).contains("&lt;svg onload=alert(3)&gt;");
        // the only script a page loads is the console's own file
        assertThat(Pattern.compile("<script").matcher(grid.body()).results().count()).isEqualTo(1);
    }

    @Test
    void shouldServeJpegAndPixelTensorsAsPicturesAndOtherTensorsAsStatisticsAndASlice() throws Exception {
        ShardEntry first = latest().shards().get(0);
        String row0 = V + "/shards/" + first.id().laneAndSequence() + "/rows/0";

        HttpResponse<byte[]> jpeg = http.bytes(row0 + "/tensors/frame/picture?size=128");
        HttpResponse<byte[]> png = http.bytes(row0 + "/tensors/pixels/picture?size=128");
        HttpResponse<byte[]> none = http.bytes(row0 + "/tensors/depth/picture");
        String page = http.page(row0 + "?snapshot=1");

        assertThat(jpeg.statusCode()).isEqualTo(200);
        assertThat(jpeg.headers().firstValue("Content-Type")).hasValue("image/jpeg");
        BufferedImage frame = ImageIO.read(new ByteArrayInputStream(jpeg.body()));
        assertThat(frame.getWidth()).isEqualTo(64);
        assertThat(frame.getHeight()).isEqualTo(48);
        assertThat(png.headers().firstValue("Content-Type")).hasValue("image/png");
        BufferedImage pixels = ImageIO.read(new ByteArrayInputStream(png.body()));
        assertThat(pixels.getWidth()).isEqualTo(16);
        int index = sampleIndex(page);
        int expectedRed = (index * 13) & 0xFF; // pixel (0,0), channel 0 of sample i is (0 * 7 + i * 13) & 0xFF
        assertThat((pixels.getRGB(0, 0) >> 16) & 0xFF).isEqualTo(expectedRed);
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(page).contains("depth", "min " , "mean ", "[" + (float) index + ", ");
        assertThat(jpeg.headers().firstValue("Cache-Control")).hasValueSatisfying(c -> assertThat(c).contains("immutable"));
    }

    private static int sampleIndex(String samplePage) {
        Matcher m = Pattern.compile("<dd>s-(\\d+)</dd>").matcher(samplePage);
        assertThat(m.find()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    @Test
    void shouldComputeSnapshotStatisticsOncePerShardAndReuseThemFromTheCache() throws Exception {
        Snapshot latest = latest();
        String path = V + "/snapshots/" + latest.snapshotId();
        String page = http.page(path);
        for (int i = 0; i < 120 && page.contains("id=\"stats-progress\""); i++) {
            Thread.sleep(500);
            page = http.page(path);
        }
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < ConsoleStack.SAMPLES; i++) {
            if (i % 10 != 9) {
                kept.add(i);
            }
        }
        long cats = kept.stream().filter(i -> i % 7 != 6 && i % 2 == 0).count();
        long hostile = kept.stream().filter(i -> i % 7 == 6).count();

        assertThat(page).doesNotContain("stats-progress").contains("samples counted</dt><dd>" + kept.size() + "<");
        assertThat(page).containsPattern(">cat</text><rect[^>]*/><text[^>]*>" + cats + "<")
                .contains(">" + Html.text(Html.shorten(ConsoleStack.HOSTILE_LABEL, 28)) + "</text>").contains(">" + hostile + "</text>");
        try (Stream<Path> files = Files.list(cache.resolve("stats").resolve("v1"))) {
            assertThat(files.filter(f -> f.toString().endsWith(".json")).count()).isEqualTo(latest.shards().size());
        }
        Path secondCache = cache.resolve("second");
        Files.createDirectories(secondCache);
        Files.walk(cache.resolve("stats")).forEach(f -> copy(f, secondCache.resolve(cache.relativize(f))));
        try (ConsoleServer second = data.console(secondCache, Optional.empty())) {
            String again = new ConsoleHttp(second.port()).page(path);
            assertThat(again).as("every shard's statistics come from the cache: nothing left to compute")
                    .doesNotContain("stats-progress").contains("samples counted</dt><dd>" + kept.size() + "<");
        }
    }

    private static void copy(Path from, Path to) {
        try {
            if (Files.isDirectory(from)) {
                Files.createDirectories(to);
            } else {
                Files.copy(from, to);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldDiffTwoSnapshotsWithTheDeletionItsReasonAndTheSamplesRemoved() throws Exception {
        String diff = http.page(V + "/diff?a=" + data.snapshotBeforeDelete + "&b=" + data.snapshotAfterDelete);

        assertThat(diff).contains("id=\"deletions\"", Html.text(ConsoleStack.DELETE_REASON), "deviceId in [cam-bad]")
                .doesNotContain("<b>cam-bad</b>").contains("net samples</div><div class=\"big-number\">-4<");
    }

    @Test
    void shouldPageWithACursorThroughEverySampleOnceAndFilterByLabelAndDevice() throws Exception {
        Snapshot latest = latest();
        List<String> seen = new ArrayList<>();
        String next = V + "/snapshots/" + latest.snapshotId() + "/samples?size=7";
        while (next != null) {
            String page = http.page(next);
            Matcher m = Pattern.compile("alt=\"(s-\\d+)\"").matcher(page);
            while (m.find()) {
                seen.add(m.group(1));
            }
            Matcher more = Pattern.compile("id=\"next-page\" href=\"([^\"]+)\"").matcher(page);
            next = more.find() ? V + "/snapshots/" + latest.snapshotId() + "/samples" + more.group(1).replace("&amp;", "&") : null;
        }
        String cats = http.page(V + "/snapshots/" + latest.snapshotId() + "/samples?label=cat");
        String cam1 = http.page(V + "/snapshots/" + latest.snapshotId() + "/samples?device=cam-1");
        String none = http.page(V + "/snapshots/" + latest.snapshotId() + "/samples?device=cam-1&from=2030-01-01T00:00:00Z");

        assertThat(seen).hasSize((int) latest.sampleCount()).doesNotHaveDuplicates().doesNotContain("s-9", "s-19");
        assertThat(Pattern.compile("class=\"label\">([^<]*)<").matcher(cats).results().map(r -> r.group(1)).toList())
                .isNotEmpty().containsOnly("cat");
        assertThat(Pattern.compile("class=\"device muted\">([^<]*)<").matcher(cam1).results().map(r -> r.group(1)).toList())
                .isNotEmpty().containsOnly("cam-1");
        assertThat(none).contains("0 samples on this page").contains("skipped by the log");
    }

    @Test
    void shouldShowAShardWithItsSealReasonVerificationAndDevices() throws Exception {
        ShardEntry shard = latest().shards().get(0);

        String page = http.page(V + "/shards/" + shard.id().laneAndSequence());

        assertThat(page).contains(shard.sha256(), "sha256 and size match the commit log", "id=\"shard-devices\"")
                .containsPattern("<tr><td>[^<]+</td><td class=\"num\">\\d+</td></tr>")
                .containsPattern("seal reason</dt><dd>(COUNT|AGE|BYTES)<");
    }

    @Test
    void shouldRefuseNamesThatLeaveTheDatasetAndNeverFail() throws Exception {
        List<String> hostile = List.of("/datasets/..%2F..%2Fetc/v1", "/datasets/%2e%2e/v1", "/datasets/cams/..",
                "/datasets/cams/v1/shards/lane-1/../../spec.json", "/datasets/cams/v1/shards/lane-00000/shard-x",
                "/datasets/cams/v1/snapshots/-1", "/datasets/cams/v1/snapshots/99999999", "/datasets/.hidden/v1",
                "/datasets/cams/v1/shards/lane-00000/shard-000000000000/rows/0/tensors/..%2Fx/picture",
                "/datasets/cams/v1/snapshots/1/samples?cursor=../../x", "/dead-letters/0/-5", "/datasets/nosuch/v1");

        for (String path : hostile) {
            HttpResponse<String> response = http.get(path);
            assertThat(response.statusCode()).as(path).isIn(400, 404);
            assertThat(response.body()).as(path).doesNotContain("formatVersion");
        }
    }

    @Test
    void shouldAnswerNotModifiedForASnapshotPageTheBrowserAlreadyHas() throws Exception {
        String path = V + "/diff?a=0&b=" + data.snapshotBeforeDelete;
        HttpResponse<String> first = http.get(path);
        String etag = first.headers().firstValue("ETag").orElseThrow();

        HttpResponse<String> second = http.get(path, "If-None-Match", etag);

        assertThat(second.statusCode()).isEqualTo(304);
        assertThat(second.body()).isEmpty();
    }

    @Test
    void shouldShowDeadLettersGroupedByReasonWithTheirPayloadDecodedAgainstTheRegistry() throws Exception {
        String list = http.page("/dead-letters");
        String detail = http.page(ConsoleHttp.href(list, "href=\"(/dead-letters/\\d+/\\d+)\""));
        String quarantine = http.page(V + "/quarantine");

        assertThat(list).containsPattern("UNKNOWN_DATASET</a></td><td class=\"num\">" + ConsoleStack.DEAD_LETTERS + "<")
                .contains(Html.text(ConsoleStack.HOSTILE_DEVICE)).doesNotContain("<img src=x");
        assertThat(detail).contains("decoded against the registry schema", "io.shardflow.schemas.Sample", "ghost", "v9",
                Html.text(ConsoleStack.HOSTILE_LABEL).substring(0, 20)).doesNotContain("<script>window");
        assertThat(quarantine).contains("No quarantined shards");
    }

    @Test
    void shouldAskForCredentialsWhenConfiguredAndAnswerOnlyLocalhostWithout() throws Exception {
        ConsoleSettings.Credentials token = ConsoleSettings.Credentials.token("s3cret-token-42");
        try (ConsoleServer guarded = data.console(cache.resolve("guarded"), Optional.of(token))) {
            ConsoleHttp client = new ConsoleHttp(guarded.port());
            String basic = java.util.Base64.getEncoder().encodeToString("anyone:s3cret-token-42".getBytes());

            assertThat(client.get("/").statusCode()).isEqualTo(401);
            assertThat(client.get("/health").statusCode()).as("probes carry no credentials").isEqualTo(200);
            assertThat(client.get("/").headers().firstValue("WWW-Authenticate")).hasValueSatisfying(h -> assertThat(h).startsWith("Basic"));
            assertThat(client.get("/", "Authorization", "Bearer wrong-token-00").statusCode()).isEqualTo(401);
            assertThat(client.get("/", "Authorization", "Bearer s3cret-token-42").statusCode()).isEqualTo(200);
            assertThat(client.get("/", "Authorization", "Basic " + basic).statusCode()).isEqualTo(200);
        }
        assertThat(rawGet(console.port(), "evil.example:80")).startsWith("HTTP/1.1 403");
        assertThat(rawGet(console.port(), "localhost:" + console.port())).startsWith("HTTP/1.1 200");
        assertThatThrownBy(() -> new ConsoleSettings("0.0.0.0", 0, Optional.empty(), cache, 1, Optional.empty(), null, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SHARDFLOW_CONSOLE_TOKEN_FILE");
    }

    /** A GET with a Host header of our choosing (the JDK client will not send a foreign one): what DNS rebinding looks like. */
    private static String rawGet(int port, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes());
            return new String(socket.getInputStream().readAllBytes());
        }
    }
}
